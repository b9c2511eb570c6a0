#pragma once
// The built-in models by name, for the command line and config files.
#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "models/builtin/brusselator_1d.hpp"
#include "models/builtin/harmonic_oscillator.hpp"
#include "models/builtin/lorenz63.hpp"
#include "models/builtin/lotka_volterra.hpp"
#include "models/builtin/robertson.hpp"
#include "models/builtin/van_der_pol.hpp"

namespace backsweep::models {

using BuiltinModels =
    std::tuple<Lorenz63, VanDerPol, LotkaVolterra, HarmonicOscillator, Robertson>;

// Models on a 1-D grid whose number of points the config gives (model.points).
using GridBuiltinModels = std::tuple<Brusselator1D>;

inline constexpr std::array<std::string_view, 6> builtin_model_names{
    Lorenz63::name, VanDerPol::name, LotkaVolterra::name, HarmonicOscillator::name,
    Robertson::name, Brusselator1D::name};

template <class M>
concept GridBuiltinModel = requires { M::default_points; };

// Calls visitor(model) with the built-in model called `name`, a grid model with `points`
// grid points (its default for 0); returns false when there is none.
template <class Visitor>
bool visit_builtin_model(std::string_view name, std::size_t points, Visitor&& visitor) {
  const bool fixed = std::apply(
      [&](auto... models) {
        return ((models.name == name ? (visitor(models), true) : false) || ...);
      },
      BuiltinModels{});
  return fixed || std::apply(
      [&](auto... models) {
        return ((models.name == name
                     ? (visitor(decltype(models)(points ? points : models.default_points)), true)
                     : false) || ...);
      },
      GridBuiltinModels{});
}
template <class Visitor>
bool visit_builtin_model(std::string_view name, Visitor&& visitor) {
  return visit_builtin_model(name, 0, visitor);
}

// Names and defaults of a built-in model, whether static (fixed size) or per grid.
template <class M>
std::vector<std::string> state_names_of(const M& model) {
  if constexpr (GridBuiltinModel<M>) return model.state_names();
  else return {M::state_names.begin(), M::state_names.end()};
}
template <class M>
std::vector<double> default_initial_of(const M& model) {
  if constexpr (GridBuiltinModel<M>) return model.default_initial();
  else return {M::default_initial.begin(), M::default_initial.end()};
}

}  // namespace backsweep::models
