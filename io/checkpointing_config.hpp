#pragma once
// [checkpointing] as read from a config: the options, and where the budgets were given,
// so that a budget the run finds too small for one slot is reported as a config error.
#include "adjoint/checkpoint_schedule.hpp"
#include "adjoint/gradient_problem.hpp"
#include "io/config_error.hpp"

namespace backsweep {

struct CheckpointingConfig {
  CheckpointOptions options;
  SourcePosition memory_at, disk_at;

  ConfigError shortfall_error(const BudgetShortfall& shortfall) const {
    return ConfigError(shortfall.key == "disk" ? disk_at : memory_at, "checkpointing." + shortfall.key,
                       "holds no checkpoint slot: at least \"" + format_byte_size(shortfall.needed) +
                           "\" (" + std::to_string(shortfall.needed) + " bytes) would");
  }
};

}  // namespace backsweep
