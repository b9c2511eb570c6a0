#pragma once
// [checkpointing] as read from a config: the options, and where they were given, so that
// what the run refuses before it starts (a budget too small for one slot, a store_all
// beyond the machine's memory) is reported as a config error at its key.
#include <string>

#include "adjoint/checkpoint_schedule.hpp"
#include "adjoint/gradient_problem.hpp"
#include "io/config_error.hpp"

namespace backsweep {

struct CheckpointingConfig {
  CheckpointOptions options;
  SourcePosition schedule_at, memory_at, disk_at;

  // The engine's refusal of an option before the run (GradientDiagnostics::refused_option).
  ConfigError refusal_error(const std::string& key, const std::string& message) const {
    return ConfigError(key == "schedule" ? schedule_at : key == "disk" ? disk_at : memory_at,
                       "checkpointing." + key, message);
  }

  ConfigError shortfall_error(const BudgetShortfall& shortfall) const {
    return ConfigError(shortfall.key == "disk" ? disk_at : memory_at, "checkpointing." + shortfall.key,
                       "holds no checkpoint slot: at least \"" + format_byte_size(shortfall.needed) +
                           "\" (" + std::to_string(shortfall.needed) + " bytes) would");
  }
};

}  // namespace backsweep
