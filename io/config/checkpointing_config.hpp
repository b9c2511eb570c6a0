#pragma once
// [checkpointing] as read from a config: the options, and where they were given, so that
// what the run refuses before it starts (a budget too small for one slot, a store_all
// beyond the machine's memory) is reported as a config error at its key.
#include <string>

#include "adjoint/checkpoint_schedule.hpp"
#include "adjoint/gradient_problem.hpp"
#include "io/config/config_error.hpp"

namespace backsweep {

struct CheckpointingConfig {
  CheckpointOptions options;
  SourcePosition schedule_at, memory_at, disk_at;

  // The engine's refusal of an option before the run, at its key.
  ConfigError refusal_error(const OptionRefusal& refused) const {
    const SourcePosition& at = refused.key == "schedule" ? schedule_at : refused.key == "disk" ? disk_at : memory_at;
    return ConfigError(at, "checkpointing." + refused.key, refused.problem);
  }
};

}  // namespace backsweep
