#include "adjoint/stiffness.hpp"

#include <cmath>
#include <limits>
#include <sstream>

namespace backsweep {

double real_stability_limit(const ButcherTableau& tableau) {
  const int s = tableau.stages;
  for (int i = 0; i < s; ++i)
    if (tableau.a[i][i] != 0.0) return std::numeric_limits<double>::infinity();
  // R(z) = 1 + sum_k z^k bᵀ A^{k-1} 1: the coefficients from powers of A on ones.
  double coefficient[kMaxStages + 1] = {1.0};
  double power[kMaxStages], next[kMaxStages];
  for (int i = 0; i < s; ++i) power[i] = 1.0;
  for (int k = 1; k <= s; ++k) {
    for (int i = 0; i < s; ++i) coefficient[k] += tableau.b[i] * power[i];
    for (int i = 0; i < s; ++i) {
      next[i] = 0.0;
      for (int j = 0; j < s; ++j) next[i] += tableau.a[i][j] * power[j];
    }
    for (int i = 0; i < s; ++i) power[i] = next[i];
  }
  auto magnitude = [&](double x) {  // |R(-x)|
    double r = 0.0;
    for (int k = s; k >= 0; --k) r = r * -x + coefficient[k];
    return std::abs(r);
  };
  // Walk out in small steps to the first point where |R| exceeds 1.
  double x = 0.0;
  while (x < 100.0 && magnitude(x + 1e-3) <= 1.0 + 1e-12) x += 1e-3;
  return x;
}

std::string describe_instability(const StiffnessEstimate& estimate, std::string_view method, double step) {
  std::ostringstream text;
  text.precision(3);
  text << "the explicit method " << method << " is unstable at its step " << step << ": at t = " << estimate.unstable_time
       << ", h rho(J) / beta = " << estimate.unstable_ratio
       << " (a mode the model damps grows at every step: rho(J) grew after the start), so the "
          "result is not a solution of the model: take step < "
       << 0.9 * step / estimate.unstable_ratio << ", an implicit method (sdirk2, esdirk3, sdirk4, cvodes_bdf) or "
       << "adaptive steps (rtol, atol)";
  return text.str();
}

}  // namespace backsweep
