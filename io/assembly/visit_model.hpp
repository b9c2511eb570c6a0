#pragma once
// visit_model: calls a generic visitor with the model a config names, as one of two model
// types: a built-in ODE of fixed size (AnyOde), or a model that declares its Jacobian's
// sparsity pattern (AnySparseModel: the 1-D Brusselator, a hand-written grid kernel or
// equations the file defines). A command is written once for all, and the engine compiled
// once for each of the two types (apps/engine_of.hpp).
#include <memory>
#include <stdexcept>
#include <tuple>
#include <type_traits>
#include <utility>

#include "io/assembly/simulate_config.hpp"
#include "models/any_model.hpp"
#include "models/builtin/grid_kernels.hpp"
#include "models/builtin/registry.hpp"
#include "models/expression_model.hpp"

namespace backsweep {

// Dense Jacobians: their derivatives by hand or by Dual lanes.
using AnyOde = models::AnyModel<models::Lorenz63, models::VanDerPol, models::LotkaVolterra,
                                models::HarmonicOscillator, models::Robertson>;
// Declared patterns: implicit methods solve with their sparse Jacobians.
using AnySparseModel = models::each_grid_kernel<models::AnyModel>::with<
    models::Brusselator1D, std::shared_ptr<const ExpressionModel>>;

// The model types visit_model gives. The engine's entries (apps/engine_of.hpp) are
// compiled once for each, a translation unit each: BACKSWEEP_MODEL_KIND indexes this.
using ModelKinds = std::tuple<AnyOde, AnySparseModel>;

// visitor(model) with a `const M&` for some Model M. The config must come from
// load_simulate_config (which has checked the built-in name).
template <class Visitor>
void visit_model(const SimulateConfig& config, Visitor&& visitor) {
  if (config.expression_model) {
    visitor(AnySparseModel(std::shared_ptr<const ExpressionModel>(config.expression_model)));
    return;
  }
  if (config.grid_kernel) {
    if (!models::visit_grid_kernel(*config.grid_kernel, [&](auto model) { visitor(AnySparseModel(std::move(model))); }))
      throw std::logic_error("visit_model: no grid kernel called '" + config.grid_kernel->name + "'");
    return;
  }
  const auto builtin = [&](const auto& model) {
    if constexpr (models::GridBuiltinModel<std::remove_cvref_t<decltype(model)>>) visitor(AnySparseModel(model));
    else visitor(AnyOde(model));
  };
  if (!models::visit_builtin_model(config.model, config.model_points, builtin))
    throw std::logic_error("visit_model: no built-in model called '" + config.model + "'");
}

}  // namespace backsweep
