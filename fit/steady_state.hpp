#pragma once
// Pre-equilibration (PEtab's preequilibrationConditionId, or a period at -inf): an
// experiment that starts where the model settles under another condition. settle() runs
// the model with the state's derivatives along given directions (the solve's forward
// sensitivities, so a gradient through it is that of the steps taken) over spans growing
// tenfold, [t0, t0 + 10], [t0 + 10, t0 + 100], ..., until the right-hand side is small
// against the state: its RMS norm weighted by atol + rtol |y| (the solve's tolerances)
// below 1, as AMICI judges a simulation to steady state. Integrating, rather than solving
// f(y) = 0 by Newton's method, needs no regular Jacobian: reaction networks with
// conservation laws (whose Jacobian is singular) settle like any other.
#include <cmath>
#include <cstddef>
#include <sstream>
#include <string>
#include <vector>

#include "fit/settle_decades.hpp"
#include "solvers/method.hpp"
#include "solvers/solve.hpp"

namespace backsweep {

// Experiment `from`'s steady state starts the experiment in the states `kept` marks; the
// others take the experiment's own initial values (those its condition sets).
struct Preequilibration {
  std::size_t from = 0;
  std::vector<bool> kept;
};

// y (n values) and directions.initial (count x n) are moved to the steady state under p
// from options.t0; false, with `failure` saying why, when a solve fails or the model does
// not settle.
template <Model M>
bool settle(const M& model, const Method& method, IntegrateOptions options, std::vector<double>& y,
            const double* p, SensitivityDirections& directions, std::string& failure) {
  const std::size_t n = y.size(), q = directions.count;
  const double start = options.t0;
  std::vector<double> dydt(n);
  double rate = INFINITY;
  for (int decade = 1; decade <= kSettleDecades; ++decade) {
    options.t1 = start + std::pow(10.0, decade);
    options.output_times = {options.t1};
    const IntegrateResult solved = solve_sensitivities(
        model, method, y.data(), p, directions, options, [&](double t, const double* state, const double* s) {
          if (t != options.t1) return;
          std::copy(state, state + n, y.begin());
          std::copy(s, s + q * n, directions.initial.begin());
        });
    if (!solved.ok()) {
      failure = "pre-equilibration: " + solved.message;
      return false;
    }
    model(options.t1, y.data(), p, dydt.data());
    rate = scaled_rms_norm<CpuAlgebra>(n, dydt.data(), y.data(), options.rtol, options.atol);
    if (rate < 1.0) return true;
    options.t0 = options.t1;
  }
  std::ostringstream why;
  why << "pre-equilibration: the model has not settled by t = " << options.t1 << " (the right-hand side is " << rate
      << " times the tolerances): no steady state to start from";
  failure = why.str();
  return false;
}

}  // namespace backsweep
