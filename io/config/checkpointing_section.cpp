#include "io/config/checkpointing_section.hpp"

#include <unistd.h>

#include "adjoint/checkpoint_schedule.hpp"
#include "adjoint/checkpoint_file.hpp"

namespace backsweep::detail {

CheckpointingConfig read_checkpointing(const TomlSection& root, const std::string& output_dir,
                                       std::size_t state_values) {
  using Schedule = CheckpointOptions::Schedule;
  CheckpointingConfig config;
  CheckpointOptions& options = config.options;
  options.machine_memory = machine_memory();
  config.schedule_at = config.memory_at = config.disk_at = root.position("checkpointing");
  const auto section = root.subsection("checkpointing");
  if (!section) return config;
  config.schedule_at = section->position("schedule");
  section->reject_unknown_keys({"schedule", "slots", "memory", "disk", "storage"});
  const std::string schedule = section->string("schedule", "auto");
  if (schedule == "store_all") options.schedule = Schedule::store_all;
  else if (schedule == "revolve") options.schedule = Schedule::revolve;
  else if (schedule == "online") options.schedule = Schedule::online;
  else if (schedule == "two_level") options.schedule = Schedule::two_level;
  else if (schedule != "auto")
    section->fail("schedule", "must be auto, store_all, revolve, online or two_level");
  options.slots = section->count("slots", 0);
  if (section->has("slots") && options.slots == 0) section->fail("slots", "must be at least 1");
  auto size = [&](const char* key, std::uint64_t& bytes) {
    if (!section->has(key)) return;
    if (!parse_byte_size(section->string(key, ""), bytes) || bytes == 0)
      section->fail(key, "must be a size such as \"64MiB\" or \"2GiB\"");
  };
  size("memory", options.memory);
  size("disk", options.disk);
  config.memory_at = section->position("memory");
  config.disk_at = section->position("disk");
  if (options.memory && options.slots) section->fail("memory", "give either slots or memory, not both");
  if (options.schedule == Schedule::store_all && (options.slots || options.memory || options.disk))
    section->fail("schedule", "store_all keeps every step: slots, memory and disk are for the others");
  if (options.schedule == Schedule::two_level && !options.disk)
    section->fail("schedule", "two_level needs a disk budget, such as disk = \"1GiB\"");
  if (options.disk && options.schedule != Schedule::two_level &&
      options.schedule != Schedule::automatic)
    section->fail("disk", "is for schedule = \"two_level\" (or auto)");
  if (options.disk) options.disk_file = checkpoint_files_in(output_dir);
  const std::string storage = section->string("storage", "float64");
  if (storage == "float32") options.storage = CheckpointOptions::Storage::float32;
  else if (storage != "float64") section->fail("storage", "must be float64 or float32");
  // two_level says what a slot needs when it runs; auto might not pick it, so it is said here.
  const std::uint64_t state_bytes = state_values * (options.storage == CheckpointOptions::Storage::float32 ? 4 : 8);
  if (options.schedule == Schedule::automatic && options.disk && options.disk < state_bytes)
    section->fail("disk", "holds no checkpoint: one state takes " + std::to_string(state_bytes) + " bytes");
  return config;
}

std::uint64_t machine_memory() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? std::uint64_t(pages) * std::uint64_t(page) : 0;
}

}  // namespace backsweep::detail
