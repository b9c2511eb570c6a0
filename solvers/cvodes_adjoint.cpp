// CVODES' own adjoint (cvodes.hpp): the forward solve with checkpoints, then lambda and
// the quadrature of lambdaᵀ f_p backward, restarted at every stop with its jump.
#include "solvers/cvodes.hpp"

#include <algorithm>
#include <memory>

#include "solvers/cvodes_parts.hpp"

namespace backsweep {

namespace {

using namespace detail;

// Backward: lambda' = -(df/dy)ᵀ lambda, and the quadrature mu' = -(df/dp)ᵀ lambda, so
// that integrating from T down to t0 accumulates mu = ∫ lambdaᵀ f_p dt.
int rhs_backward(realtype t, N_Vector y, N_Vector yB, N_Vector yBdot, void* data) {
  return guarded(data, [&](Callbacks& c) {
    const std::size_t n = c.system.size();
    c.vjp_y.resize(n);
    c.vjp_p.resize(c.system.param_size());
    c.system.vjp(t, N_VGetArrayPointer(y), N_VGetArrayPointer(yB), c.vjp_y.data(), c.vjp_p.data());
    double* out = N_VGetArrayPointer(yBdot);
    for (std::size_t i = 0; i < n; ++i) out[i] = -c.vjp_y[i];
    return finite(out, n) ? 0 : 1;
  });
}
int quadrature_backward(realtype t, N_Vector y, N_Vector yB, N_Vector qBdot, void* data) {
  return guarded(data, [&](Callbacks& c) {
    c.vjp_y.resize(c.system.size());
    c.vjp_p.resize(c.system.param_size());
    c.system.vjp(t, N_VGetArrayPointer(y), N_VGetArrayPointer(yB), c.vjp_y.data(), c.vjp_p.data());
    double* out = N_VGetArrayPointer(qBdot);
    for (std::size_t j = 0; j < c.system.param_size(); ++j) out[j] = -c.vjp_p[j];
    return 0;
  });
}
int jacobian_backward(realtype t, N_Vector y, N_Vector, N_Vector, SUNMatrix JB, void* data, N_Vector,
                      N_Vector, N_Vector) {
  return guarded(data, [&](Callbacks& c) {
    fill(c, t, y, JB, true, -1.0);
    return 0;
  });
}

int precondition_setup_backward(realtype t, N_Vector y, N_Vector, N_Vector, booleantype jok, booleantype* jcur,
                                realtype gamma, void* data) {
  return guarded(data, [&](Callbacks& c) { return set_up_preconditioner(c, true, t, y, jok, jcur, gamma); });
}
int precondition_solve_backward(realtype, N_Vector, N_Vector, N_Vector, N_Vector r, N_Vector z, realtype, realtype,
                                int, void* data) {
  return guarded(data, [&](Callbacks& c) {
    c.system.preconditioner(true)->precondition(N_VGetArrayPointer(r), N_VGetArrayPointer(z), true);
    return 0;
  });
}

void add_backward_counts(void* backward, CvodesCounts& counts) {
  long steps = 0, rhs_evaluations = 0, linear_iterations = 0;
  CVodeGetNumSteps(backward, &steps);
  CVodeGetNumRhsEvals(backward, &rhs_evaluations);
  CVodeGetNumLinIters(backward, &linear_iterations);
  counts.backward_linear_iterations += std::size_t(linear_iterations);
  counts.backward_steps += std::size_t(steps);
  counts.backward_rhs_evaluations += std::size_t(rhs_evaluations);
}

}  // namespace

IntegrateResult cvodes_adjoint(OdeSystem& system, bool bdf, std::vector<double> y0,
                               const IntegrateOptions& options, const CvodesAdjointRequest& request,
                               std::vector<double>& lambda, std::vector<double>& mu, CvodesCounts* counts) {
  if (auto why = options.invalid_reason(true)) return {IntegrateStatus::invalid_options, *why};
  const auto& stops = request.stops;
  if (stops.empty() || stops.back() != options.t1 || !(stops.front() > options.t0) ||
      !std::is_sorted(stops.begin(), stops.end()))
    return {IntegrateStatus::invalid_options, "the adjoint's stops must ascend in (t0, t1], t1 last"};
  const std::size_t n = system.size(), np = system.param_size();
  SundialsContext context;
  Vector state(n, context.ctx);
  std::copy(y0.begin(), y0.end(), state.data());
  Solver solver(bdf ? CV_BDF : CV_ADAMS, context.ctx);
  Callbacks callbacks{system, {}, {}, {}, nullptr, nullptr, {}, {}};
  std::unique_ptr<LinearSystem> linear, linear_backward;
  std::unique_ptr<FixedPoint> fixed_point;
  if (!set_up(solver.mem, bdf, state.v, options, callbacks, linear, fixed_point, context.ctx) ||
      CVodeAdjInit(solver.mem, long(request.steps_between_checkpoints), CV_POLYNOMIAL) != CV_SUCCESS)
    return {IntegrateStatus::invalid_options, "CVODES rejected the options"};

  // Forward, stopping at every stop and output time.
  double t = options.t0;
  int checkpoints = 0;
  std::size_t output = 0;
  auto reach = [&](double time) {
    const int flag = CVodeF(solver.mem, time, state.v, &t, CV_NORMAL, &checkpoints);
    callbacks.rethrow();
    return flag;
  };
  for (std::size_t k = 0; k < request.stops.size(); ++k) {
    for (; output < request.outputs.size() && request.outputs[output] <= request.stops[k]; ++output) {
      if (request.outputs[output] == request.stops[k]) continue;  // shown at the stop
      if (const int flag = reach(request.outputs[output]); flag < 0) return failure(flag, t, "forward solve");
      request.at_output(request.outputs[output], state.data());
    }
    if (const int flag = reach(request.stops[k]); flag < 0) return failure(flag, t, "forward solve");
    request.at_stop(k, state.data());
    if (request.at_output && std::binary_search(request.outputs.begin(), request.outputs.end(), request.stops[k]))
      request.at_output(request.stops[k], state.data());
  }
  CvodesCounts read;
  read_counts(solver.mem, bdf, read);
  read.checkpoints = std::size_t(checkpoints);

  // Backward, with the quadrature of lambdaᵀ f_p, restarted at every stop with its jump.
  Vector adjoint(n, context.ctx), quadrature(np, context.ctx);
  lambda.assign(n, 0.0);
  mu.assign(np, 0.0);
  request.seed(state.data(), lambda.data(), mu.data());
  std::copy(lambda.begin(), lambda.end(), adjoint.data());
  for (std::size_t j = 0; j < np; ++j) quadrature.data()[j] = 0.0;
  int which = 0;
  const double t_end = request.stops.back();
  if (CVodeCreateB(solver.mem, CV_BDF, &which) != CV_SUCCESS ||
      CVodeInitB(solver.mem, which, rhs_backward, t_end, adjoint.v) != CV_SUCCESS ||
      CVodeSStolerancesB(solver.mem, which, options.rtol, options.atol) != CV_SUCCESS ||
      CVodeSetUserDataB(solver.mem, which, &callbacks) != CV_SUCCESS ||
      CVodeSetMaxNumStepsB(solver.mem, which, long(options.max_steps)) != CV_SUCCESS)
    return {IntegrateStatus::invalid_options, "CVODES rejected the backward problem"};
  linear_backward = std::make_unique<LinearSystem>(adjoint.v, system, true, context.ctx);
  const bool krylov = system.preconditioner(true) != nullptr;
  if (CVodeSetLinearSolverB(solver.mem, which, linear_backward->solver, linear_backward->matrix) != CV_SUCCESS ||
      (krylov ? CVodeSetPreconditionerB(solver.mem, which, precondition_setup_backward, precondition_solve_backward)
              : CVodeSetJacFnB(solver.mem, which, jacobian_backward)) != CV_SUCCESS ||
      CVodeQuadInitB(solver.mem, which, quadrature_backward, quadrature.v) != CV_SUCCESS ||
      CVodeQuadSStolerancesB(solver.mem, which, options.rtol, options.atol) != CV_SUCCESS ||
      CVodeSetQuadErrConB(solver.mem, which, SUNTRUE) != CV_SUCCESS)
    return {IntegrateStatus::invalid_options, "CVODES rejected the backward problem"};
  std::vector<double> carried(np, 0.0);  // the quadrature of the finished segments
  // Shows lambda and mu to at_monitor at the monitor times above t_low, going down (CVODES
  // interpolates there: its backward steps stay the same).
  std::size_t monitored = request.monitor_times.size();
  std::vector<double> mu_so_far(np);
  auto monitor_down_to = [&](double t_low) {
    for (; monitored > 0 && request.monitor_times[monitored - 1] > t_low; --monitored) {
      const double t_m = request.monitor_times[monitored - 1];
      if (t_m >= t_end) continue;
      const int flag = CVodeB(solver.mem, t_m, CV_NORMAL);
      callbacks.rethrow();
      if (flag < 0) return flag;
      CVodeGetB(solver.mem, which, &t, adjoint.v);
      CVodeGetQuadB(solver.mem, which, &t, quadrature.v);
      for (std::size_t j = 0; j < np; ++j) mu_so_far[j] = mu[j] + carried[j] + quadrature.data()[j];
      request.at_monitor(t_m, adjoint.data(), mu_so_far.data());
    }
    return int(CV_SUCCESS);
  };
  for (std::size_t k = request.stops.size() - 1; k-- > 0;) {
    const double t_k = request.stops[k];
    if (const int flag = monitor_down_to(t_k); flag < 0) return failure(flag, t, "backward solve");
    const int flag = CVodeB(solver.mem, t_k, CV_NORMAL);
    callbacks.rethrow();
    if (flag < 0) return failure(flag, t_k, "backward solve");
    CVodeGetB(solver.mem, which, &t, adjoint.v);
    CVodeGetQuadB(solver.mem, which, &t, quadrature.v);
    std::copy(adjoint.data(), adjoint.data() + n, lambda.begin());
    for (std::size_t j = 0; j < np; ++j) carried[j] += quadrature.data()[j];
    request.jump(k, lambda.data(), mu.data());
    add_backward_counts(CVodeGetAdjCVodeBmem(solver.mem, which), read);  // ReInitB zeroes them
    std::copy(lambda.begin(), lambda.end(), adjoint.data());
    for (std::size_t j = 0; j < np; ++j) quadrature.data()[j] = 0.0;
    if (CVodeReInitB(solver.mem, which, t_k, adjoint.v) != CV_SUCCESS ||
        CVodeQuadReInitB(solver.mem, which, quadrature.v) != CV_SUCCESS)
      return failure(CV_ILL_INPUT, t_k, "backward restart");
  }
  if (options.t0 < (request.stops.size() > 1 ? request.stops[0] : t_end)) {
    if (const int flag = monitor_down_to(options.t0); flag < 0) return failure(flag, t, "backward solve");
    const int flag = CVodeB(solver.mem, options.t0, CV_NORMAL);
    callbacks.rethrow();
    if (flag < 0) return failure(flag, options.t0, "backward solve");
    CVodeGetB(solver.mem, which, &t, adjoint.v);
    CVodeGetQuadB(solver.mem, which, &t, quadrature.v);
    std::copy(adjoint.data(), adjoint.data() + n, lambda.begin());
    for (std::size_t j = 0; j < np; ++j) carried[j] += quadrature.data()[j];
  }
  for (std::size_t j = 0; j < np; ++j) mu[j] += carried[j];
  add_backward_counts(CVodeGetAdjCVodeBmem(solver.mem, which), read);
  if (counts) *counts = read;
  IntegrateResult result;
  result.t = options.t0;
  result.steps = read.steps;
  result.rhs_evaluations = read.rhs_evaluations;
  return result;
}

}  // namespace backsweep
