#pragma once
// What `gradient` reads: the simulate sections plus [objective], [gradient] and
// [checkpointing], [monitor], [ensemble] (docs/config.md). Objective terms are expressions of t, the
// states, the parameters and the constants, parsed here so that their errors point into
// the file.
#include <optional>
#include <string>
#include <vector>

#include "adjoint/gradient_mode.hpp"
#include "adjoint/gradient_problem.hpp"
#include "io/config/checkpointing_config.hpp"
#include "io/config/config_file.hpp"
#include "io/config/ensemble_config.hpp"
#include "io/config/simulate_config.hpp"
#include "models/expression.hpp"

namespace backsweep {

struct ObservationTerm {
  double time;
  Expression formula;
};

struct GradientConfig {
  SimulateConfig simulate;
  // The names objective expressions may use (t, states, parameters, constants);
  // evaluate them with evaluate_at(expression, t, y, p).
  ExpressionScope scope;
  std::optional<Expression> terminal, integral;
  std::vector<ObservationTerm> observations;  // sorted by time
  std::vector<std::size_t> parameters;        // indices reported; default all
  bool initial = true;
  GradientMode mode = GradientMode::adjoint;  // [gradient] mode, "auto" resolved
  CheckpointingConfig checkpointing;
  MonitorOptions monitor;                     // [monitor] thresholds
  std::optional<EnsembleConfig> ensemble;     // [ensemble]: a gradient a member
};

GradientConfig load_gradient_config(const std::string& path);
// The same from a file already read (ConfigError on any problem).
GradientConfig gradient_config(const ConfigFile& file);

}  // namespace backsweep
