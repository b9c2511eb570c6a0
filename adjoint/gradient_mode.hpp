#pragma once
// How a gradient is computed: the discrete adjoint (one backward sweep, whatever the number
// of parameters) or forward tangents (Dual lanes through the solve, kDerivativeLanes
// columns of [p, y0] per solve). `auto` is one rule for every command.
#include <cstddef>
#include <optional>
#include <string_view>

#include "models/derivatives.hpp"

namespace backsweep {

enum class GradientMode { adjoint, tangent };

constexpr const char* to_string(GradientMode mode) {
  return mode == GradientMode::adjoint ? "adjoint" : "tangent";
}

// The tangent while every column of [p, y0] fits in one Dual chunk (one forward solve on
// Dual numbers costs less than a forward solve plus a backward sweep), else the adjoint.
constexpr GradientMode automatic_gradient_mode(std::size_t states, std::size_t parameters) {
  return states + parameters <= std::size_t(kDerivativeLanes) ? GradientMode::tangent
                                                              : GradientMode::adjoint;
}

// "adjoint", "tangent", or "auto" (then the rule above); nothing for any other name.
constexpr std::optional<GradientMode> gradient_mode(std::string_view name, std::size_t states,
                                                    std::size_t parameters) {
  if (name == "adjoint") return GradientMode::adjoint;
  if (name == "tangent") return GradientMode::tangent;
  if (name == "auto") return automatic_gradient_mode(states, parameters);
  return std::nullopt;
}

}  // namespace backsweep
