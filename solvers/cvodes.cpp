// CVODES for forward solves and forward sensitivities (cvodes.hpp).
#include "solvers/cvodes.hpp"

#include <algorithm>
#include <memory>

#include "solvers/cvodes_parts.hpp"

namespace backsweep {

namespace {

using namespace detail;

// s_k' = df/dy s_k + df/dp p_k for every direction at once (eight per model call).
int sensitivity_rhs(int count, realtype t, N_Vector y, N_Vector, N_Vector* s, N_Vector* s_dot, void* data,
                    N_Vector, N_Vector) {
  return guarded(data, [&](Callbacks& c) {
    const std::size_t n = c.system.size(), m = std::size_t(count);
    c.sensitivities.resize(m * n);
    c.derivatives.resize(m * n);
    for (std::size_t k = 0; k < m; ++k)
      std::copy_n(N_VGetArrayPointer(s[k]), n, c.sensitivities.data() + k * n);
    c.system.jvp(t, N_VGetArrayPointer(y), m, c.sensitivities.data(), c.directions->parameters.data(),
                 c.derivatives.data());
    for (std::size_t k = 0; k < m; ++k) std::copy_n(c.derivatives.data() + k * n, n, N_VGetArrayPointer(s_dot[k]));
    return finite(c.derivatives.data(), m * n) ? 0 : 1;
  });
}

}  // namespace

IntegrateResult cvodes_integrate(OdeSystem& system, bool bdf, double* y, const IntegrateOptions& options,
                                 const std::function<void(double, const double*)>& observer,
                                 CvodesCounts* counts) {
  if (auto why = options.invalid_reason(true)) return {IntegrateStatus::invalid_options, *why};
  if (options.events) return {IntegrateStatus::invalid_options, kCvodesTakesNoEvents};
  const std::size_t n = system.size();
  SundialsContext context;
  Vector state(n, context.ctx);
  std::copy(y, y + n, state.data());
  Solver solver(bdf ? CV_BDF : CV_ADAMS, context.ctx);
  Callbacks callbacks{system, {}, {}, {}, nullptr, nullptr, {}, {}};
  std::unique_ptr<LinearSystem> linear;
  std::unique_ptr<FixedPoint> fixed_point;
  if (!set_up(solver.mem, bdf, state.v, options, callbacks, linear, fixed_point, context.ctx))
    return {IntegrateStatus::invalid_options, "CVODES rejected the options"};
  observer(options.t0, state.data());
  IntegrateResult result;
  const bool every_step = options.output_times.empty();
  std::size_t next_output = 0;
  double t = options.t0;
  while (t < options.t1) {
    while (next_output < options.output_times.size() && options.output_times[next_output] <= options.t0)
      ++next_output;
    const double target = every_step ? options.t1
                          : next_output < options.output_times.size() ? options.output_times[next_output]
                                                                     : options.t1;
    const int flag = CVode(solver.mem, target, state.v, &t, every_step ? CV_ONE_STEP : CV_NORMAL);
    callbacks.rethrow();
    if (flag < 0) {
      result = failure(flag, t, "forward solve");
      break;
    }
    if (every_step || next_output < options.output_times.size()) observer(t, state.data());
    if (!every_step) ++next_output;
  }
  std::copy(state.data(), state.data() + n, y);
  CvodesCounts read;
  read_counts(solver.mem, bdf, read);
  result.steps = read.steps;
  result.rhs_evaluations = read.rhs_evaluations;
  if (result.ok()) result.t = options.t1;
  if (counts) *counts = read;
  return result;
}

IntegrateResult cvodes_sensitivities(OdeSystem& system, bool bdf, double* y,
                                     const SensitivityDirections& directions, const IntegrateOptions& options,
                                     const std::function<void(double, const double*, const double*)>& observer,
                                     CvodesCounts* counts) {
  if (auto why = options.invalid_reason(true)) return {IntegrateStatus::invalid_options, *why};
  if (options.events) return {IntegrateStatus::invalid_options, kCvodesTakesNoEvents};
  const std::size_t n = system.size(), m = directions.count;
  if (m == 0 || directions.initial.size() != m * n || directions.parameters.size() != m * system.param_size())
    return {IntegrateStatus::invalid_options, "sensitivity directions do not match the system"};
  SundialsContext context;
  Vector state(n, context.ctx);
  std::copy(y, y + n, state.data());
  Solver solver(bdf ? CV_BDF : CV_ADAMS, context.ctx);
  Callbacks callbacks{system, {}, {}, {}, nullptr, &directions, {}, {}};
  std::unique_ptr<LinearSystem> linear;
  std::unique_ptr<FixedPoint> fixed_point;
  const std::unique_ptr<N_Vector, std::function<void(N_Vector*)>> s(
      N_VCloneVectorArray(int(m), state.v), [m](N_Vector* v) { N_VDestroyVectorArray(v, int(m)); });
  for (std::size_t k = 0; k < m; ++k) std::copy_n(directions.initial.data() + k * n, n, N_VGetArrayPointer(s.get()[k]));
  if (!set_up(solver.mem, bdf, state.v, options, callbacks, linear, fixed_point, context.ctx, true) ||
      CVodeSensInit(solver.mem, int(m), CV_STAGGERED, sensitivity_rhs, s.get()) != CV_SUCCESS ||
      CVodeSensEEtolerances(solver.mem) != CV_SUCCESS || CVodeSetSensErrCon(solver.mem, SUNTRUE) != CV_SUCCESS)
    return {IntegrateStatus::invalid_options, "CVODES rejected the options"};
  IntegrateResult result;
  std::vector<double> sensitivities(m * n);
  double t = options.t0;
  for (double target : options.output_times) {
    if (target <= options.t0) continue;
    const int flag = CVode(solver.mem, target, state.v, &t, CV_NORMAL);
    callbacks.rethrow();
    if (flag < 0) {
      result = failure(flag, t, "forward sensitivity solve");
      break;
    }
    CVodeGetSens(solver.mem, &t, s.get());
    for (std::size_t k = 0; k < m; ++k)
      std::copy_n(N_VGetArrayPointer(s.get()[k]), n, sensitivities.data() + k * n);
    observer(t, state.data(), sensitivities.data());
  }
  std::copy(state.data(), state.data() + n, y);
  CvodesCounts read;
  read_counts(solver.mem, true, read);
  long sensitivity_rhs_evaluations = 0;
  CVodeGetSensNumRhsEvals(solver.mem, &sensitivity_rhs_evaluations);
  read.rhs_evaluations += std::size_t(sensitivity_rhs_evaluations);
  result.steps = read.steps;
  result.rhs_evaluations = read.rhs_evaluations;
  if (result.ok()) result.t = t;
  if (counts) *counts = read;
  return result;
}

}  // namespace backsweep
