#pragma once
// The built-in models by name, for the command line and config files.
#include <array>
#include <string_view>
#include <tuple>

#include "models/builtin/harmonic_oscillator.hpp"
#include "models/builtin/lorenz63.hpp"
#include "models/builtin/lotka_volterra.hpp"
#include "models/builtin/robertson.hpp"
#include "models/builtin/van_der_pol.hpp"

namespace backsweep::models {

using BuiltinModels =
    std::tuple<Lorenz63, VanDerPol, LotkaVolterra, HarmonicOscillator, Robertson>;

inline constexpr std::array<std::string_view, 5> builtin_model_names{
    Lorenz63::name, VanDerPol::name, LotkaVolterra::name, HarmonicOscillator::name,
    Robertson::name};

// Calls visitor(model) with the built-in model called `name`; returns false when there
// is none.
template <class Visitor>
bool visit_builtin_model(std::string_view name, Visitor&& visitor) {
  return std::apply(
      [&](auto... models) {
        return ((models.name == name ? (visitor(models), true) : false) || ...);
      },
      BuiltinModels{});
}

}  // namespace backsweep::models
