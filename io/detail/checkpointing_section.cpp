#include "io/detail/checkpointing_section.hpp"

#include "adjoint/checkpoint_schedule.hpp"

namespace backsweep::detail {

CheckpointOptions read_checkpointing(const TomlSection& root) {
  CheckpointOptions options;
  const auto section = root.subsection("checkpointing");
  if (!section) return options;
  section->reject_unknown_keys({"schedule", "slots", "memory", "storage"});
  const std::string schedule = section->string("schedule", "auto");
  if (schedule == "store_all") options.schedule = CheckpointOptions::Schedule::store_all;
  else if (schedule == "revolve") options.schedule = CheckpointOptions::Schedule::revolve;
  else if (schedule != "auto") section->fail("schedule", "must be auto, store_all or revolve");
  options.slots = section->count("slots", 0);
  if (section->has("slots") && options.slots == 0) section->fail("slots", "must be at least 1");
  if (section->has("memory")) {
    if (section->has("slots")) section->fail("memory", "give either slots or memory, not both");
    if (!parse_byte_size(section->string("memory", ""), options.memory) || options.memory == 0)
      section->fail("memory", "must be a size such as \"64MiB\" or \"2GiB\"");
  }
  if (options.schedule == CheckpointOptions::Schedule::store_all &&
      (options.slots || options.memory))
    section->fail("schedule", "store_all keeps every state: slots and memory are for revolve");
  const std::string storage = section->string("storage", "float64");
  if (storage == "float32") options.storage = CheckpointOptions::Storage::float32;
  else if (storage != "float64") section->fail("storage", "must be float64 or float32");
  return options;
}

}  // namespace backsweep::detail
