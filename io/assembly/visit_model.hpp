#pragma once
// visit_model: calls a generic visitor with the model a config names: a built-in ODE (a
// C++ type of its own), a hand-written grid kernel (AnyGridKernel, one type for all of
// them) or equations the file defines (ExpressionModel), so that a command is written
// once for all, and the engine compiled once for each of those types.
#include <stdexcept>
#include <utility>

#include "io/assembly/simulate_config.hpp"
#include "models/builtin/registry.hpp"
#include "models/expression_model.hpp"

namespace backsweep {

// visitor(model) with a `const M&` for some Model M. The config must come from
// load_simulate_config (which has checked the built-in name).
template <class Visitor>
void visit_model(const SimulateConfig& config, Visitor&& visitor) {
  if (config.expression_model) {
    visitor(*config.expression_model);
    return;
  }
  if (config.grid_kernel) {
    visitor(models::AnyGridKernel(*config.grid_kernel));
    return;
  }
  if (!models::visit_builtin_model(config.model, config.model_points, visitor))
    throw std::logic_error("visit_model: no built-in model called '" + config.model + "'");
}

}  // namespace backsweep
