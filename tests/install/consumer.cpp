// Integrates the damped oscillator with an installed backsweep and checks the result
// against the closed form.
#include <cmath>
#include <cstdio>

#include "models/builtin/harmonic_oscillator.hpp"
#include "solvers/explicit_rk.hpp"
#include "solvers/integrate.hpp"

int main() {
  const backsweep::models::HarmonicOscillator model;
  backsweep::ExplicitRK stepper(model, backsweep::tableaux::dopri5);
  backsweep::IntegrateOptions options;
  options.t1 = 2.0;
  options.rtol = options.atol = 1e-10;
  double y[2] = {1.0, 0.0};
  const auto result = backsweep::integrate(stepper, y, model.default_params.data(), options);
  const auto exact = model.exact(2.0, model.default_initial.data(), model.default_params.data());
  const double error = std::abs(y[0] - exact[0]);
  std::printf("consumer: %s, error %.2e\n", backsweep::to_string(result.status), error);
  return result.ok() && error < 1e-8 ? 0 : 1;
}
