#pragma once
// A gradient config built for the engine: its simulate sections (simulate_config.hpp) and
// its objective's formulas parsed in the config's scope (config_objective.hpp makes the
// engine's objective of them).
#include <optional>
#include <string>
#include <vector>

#include "io/assembly/simulate_config.hpp"
#include "io/config/gradient_spec.hpp"
#include "models/expression.hpp"

namespace backsweep {

struct ObservationTerm {
  double time;
  Expression formula;
};

struct GradientConfig : GradientSettings {
  SimulateConfig simulate;
  // The names objective expressions may use (t, states, parameters, constants);
  // evaluate them with evaluate_at(expression, t, y, p).
  ExpressionScope scope;
  std::optional<Expression> terminal, integral;
  std::vector<ObservationTerm> observations;  // sorted by time
};

GradientConfig assemble_gradient(GradientSpec spec);
GradientConfig load_gradient_config(const std::string& path);
// The same from a file already read (ConfigError on any problem).
GradientConfig gradient_config(const ConfigFile& file);

}  // namespace backsweep
