#pragma once
// The forward solves by any method, a backsweep stepper or CVODES, so that the commands
// and the fits never ask which:
//   solve_forward: states; y in place, observer(t, y) at t0 and at every output time
//     (after every step when there are none);
//   solve_sensitivities: states and their derivatives along given directions (seeds of
//     y0 and p), observer(t, y, s) at t0 and at every output time.
#include <algorithm>
#include <cstddef>
#include <vector>

#include "models/derivatives.hpp"
#include "models/dual.hpp"
#include "solvers/cvodes.hpp"
#include "solvers/integrate.hpp"
#include "solvers/method.hpp"

namespace backsweep {

template <Model M, class Observer>
IntegrateResult solve_forward(const M& model, const Method& method, double* y, const double* p,
                              const IntegrateOptions& options, Observer&& observer) {
  if (options.events) options.events->apply_at(options.t0, p, y);  // an event at the start
  if (method.is_sundials()) {
    ModelSystem system(model, p, method.newton.linear_solver, method.newton.preconditioner);
    return cvodes_integrate(system, method.sundials_bdf(), y, options, observer);
  }
  return with_stepper<double>(model, method, options.events.get(), [&](auto& stepper) {
    return integrate(stepper, y, p, options, observer);
  });
}

// The same, with on_step(step, y_next) after every accepted step of our own steppers
// (CVODES' steps are its own, not shown).
template <Model M, class Observer, class OnStep>
IntegrateResult solve_forward(const M& model, const Method& method, double* y, const double* p,
                              const IntegrateOptions& options, Observer&& observer, OnStep&& on_step) {
  if (method.is_sundials()) return solve_forward(model, method, y, p, options, observer);
  if (options.events) options.events->apply_at(options.t0, p, y);  // an event at the start
  return with_stepper<double>(model, method, options.events.get(), [&](auto& stepper) {
    return integrate(stepper, y, p, options, observer, on_step);
  });
}

// s holds directions.count rows of n (row i: dy/d(direction i)). Needs output times. Our
// steppers carry kDerivativeLanes directions a solve as Dual lanes (the outputs of every
// solve gathered, then shown in time order); CVODES carries them all at once as its
// forward sensitivities.
template <Model M, class Observer>
IntegrateResult solve_sensitivities(const M& model, const Method& method, const double* y0, const double* p,
                                    const SensitivityDirections& directions, const IntegrateOptions& options,
                                    Observer&& observer) {
  const std::size_t n = state_size(model), np = param_size(model), q = directions.count;
  if (method.is_sundials()) {
    std::vector<double> y(y0, y0 + n);
    SensitivityDirections jumped = directions;  // through the events at the start
    if (options.events)
      options.events->apply_at(options.t0, n, p, q, directions.parameters.data(), y.data(), jumped.initial.data());
    observer(options.t0, y.data(), jumped.initial.data());
    ModelSystem system(model, p, method.newton.linear_solver, method.newton.preconditioner);
    return cvodes_sensitivities(system, method.sundials_bdf(), y.data(), jumped, options, observer);
  }
  using D = Dual<double, kDerivativeLanes>;
  std::vector<double> times, states, slopes;  // per output: t, n states, q x n slopes
  IntegrateResult result;
  for (std::size_t first = 0; first < std::max<std::size_t>(q, 1); first += kDerivativeLanes) {
    const std::size_t last = std::min(q, first + kDerivativeLanes);
    std::vector<D> y(y0, y0 + n), pd(p, p + np);
    for (std::size_t i = first; i < last; ++i) {
      for (std::size_t j = 0; j < n; ++j) y[j].d[i - first] = directions.initial[i * n + j];
      for (std::size_t j = 0; j < np; ++j) pd[j].d[i - first] = directions.parameters[i * np + j];
    }
    if (options.events) options.events->apply_at(options.t0, pd.data(), y.data());
    std::size_t output = 0;
    result = with_stepper<D>(model, method, options.events.get(), [&](auto& stepper) {
      return integrate(stepper, y.data(), pd.data(), options, [&](double t, const D* state) {
        if (first == 0) {
          times.push_back(t);
          for (std::size_t j = 0; j < n; ++j) states.push_back(state[j].v);
          slopes.resize(times.size() * q * n);
        }
        for (std::size_t i = first; i < last; ++i)
          for (std::size_t j = 0; j < n; ++j) slopes[(output * q + i) * n + j] = state[j].d[i - first];
        ++output;
      });
    });
    if (!result.ok()) return result;
  }
  for (std::size_t k = 0; k < times.size(); ++k) observer(times[k], states.data() + k * n, slopes.data() + k * q * n);
  return result;
}

}  // namespace backsweep
