#pragma once
// A config's simulate sections built for the engine: the spec (io/config/simulate_spec.hpp)
// with its model built (a defined model's ExpressionModel, or a grid kernel; a built-in
// ODE is found by name, visit_model.hpp), its method with the Newton options given, and
// the formulas of its initial state parsed. Errors point into the file, at the formula.
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "io/config/ensemble_config.hpp"
#include "io/config/simulate_spec.hpp"
#include "models/builtin/grid_kernels.hpp"
#include "models/expression_model.hpp"
#include "solvers/method.hpp"

namespace backsweep {

struct SimulateConfig : SimulateSpec {
  std::shared_ptr<const ExpressionModel> expression_model;  // kind equations
  std::shared_ptr<const models::GridKernel> grid_kernel;    // kind grid_kernel
  Method method = tableaux::dopri5;
  // Per state, as initial_formulas: an expression of the parameters, or nothing.
  std::vector<std::optional<Expression>> initial_expressions;
};

// Throws ConfigError (file, line, key) where the spec cannot be built.
SimulateConfig assemble_simulate(SimulateSpec spec);

// `events` (the spec's, or more) as the steppers take them, in the spec's scope.
std::shared_ptr<const TimeEvents> build_time_events(const SimulateSpec& spec, const std::vector<EventSpec>& events);

// Reads, validates and builds a config file's simulate sections.
SimulateConfig load_simulate_config(const std::string& path);
SimulateConfig simulate_config(const ConfigFile& file);

// An ensemble member's parameters and initial state: the config's, with the member's
// values, and [initial] expressions evaluated at the member's parameters.
struct MemberValues {
  std::vector<double> y0, p;
};
MemberValues member_values(const SimulateConfig& config, const EnsembleConfig& ensemble, std::size_t member);

}  // namespace backsweep
