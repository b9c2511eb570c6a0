#pragma once
// solve_forward: a forward solve by any method, a backsweep stepper or CVODES, for the
// commands that only need states: y in place, observer(t, y) at t0 and at every output
// time (after every step when there are none).
#include "solvers/cvodes.hpp"
#include "solvers/integrate.hpp"
#include "solvers/method.hpp"

namespace backsweep {

template <Model M, class Observer>
IntegrateResult solve_forward(const M& model, const Method& method, double* y, const double* p,
                              const IntegrateOptions& options, Observer&& observer) {
  if (method.is_sundials()) {
    ModelSystem system(model, p, method.newton.linear_solver);
    return cvodes_integrate(system, method.sundials_bdf(), y, options, observer);
  }
  return with_stepper<double>(model, method, [&](auto& stepper) {
    return integrate(stepper, y, p, options, observer);
  });
}

}  // namespace backsweep
