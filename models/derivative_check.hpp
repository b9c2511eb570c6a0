#pragma once
// check_derivatives: compares a model's hand-written vjp / jacobian with the exact
// Dual-derived ones at a given point, like Ceres' GradientChecker. Use it in every test
// of a model that supplies its own derivatives.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <sstream>
#include <string>
#include <vector>

#include "models/derivatives.hpp"

namespace backsweep {

struct DerivativeCheckReport {
  bool ok = true;
  // Largest |hand - derived| / max(1, |derived|) per derivative; -1 when not supplied.
  double vjp_error = -1, jacobian_error = -1;
  std::string message;  // which derivative disagrees, and where
};

namespace detail {
inline double scaled_difference(double hand, double derived) {
  if (!std::isfinite(hand) || !std::isfinite(derived)) return INFINITY;
  return std::abs(hand - derived) / std::max(1.0, std::abs(derived));
}
// A fixed, irregular direction so that no component is zero or repeated.
inline std::vector<double> probe_direction(std::size_t n, double offset) {
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = std::sin(1.3 * double(i) + offset) + 0.1;
  return v;
}
}  // namespace detail

template <Model M>
DerivativeCheckReport check_derivatives(const M& model, double t, const double* y,
                                        const double* p, double tolerance = 1e-10) {
  Derivatives<M> derivatives(model);
  const std::size_t n = state_size(model), np = param_size(model);
  DerivativeCheckReport report;
  std::ostringstream why;
  auto record = [&](double& slot, const char* name, double hand, double derived,
                    std::size_t index) {
    const double error = detail::scaled_difference(hand, derived);
    if (error > slot) slot = error;
    if (error > tolerance && report.ok) {
      report.ok = false;
      why << name << " entry " << index << ": hand-written " << hand << " vs derived "
          << derived;
    }
  };

  const auto lambda = detail::probe_direction(n, 1.1);
  if constexpr (HasHandVjp<M>) {
    std::vector<double> hand(n + np), derived(n + np);
    model.vjp(t, y, p, lambda.data(), hand.data(), hand.data() + n);
    derivatives.derived_vjp(t, y, p, lambda.data(), derived.data(), derived.data() + n);
    report.vjp_error = 0;
    for (std::size_t i = 0; i < n + np; ++i)
      record(report.vjp_error, "vjp", hand[i], derived[i], i);
  }
  if constexpr (HasHandJacobian<M>) {
    std::vector<double> hand(n * (n + np)), derived(n * (n + np));
    model.jacobian(t, y, p, hand.data(), hand.data() + n * n);
    derivatives.derived_jacobian(t, y, p, derived.data(), derived.data() + n * n);
    report.jacobian_error = 0;
    for (std::size_t i = 0; i < hand.size(); ++i)
      record(report.jacobian_error, "jacobian", hand[i], derived[i], i);
  }
  report.message = report.ok ? "hand-written derivatives agree with the Dual-derived ones"
                             : why.str();
  return report;
}

}  // namespace backsweep
