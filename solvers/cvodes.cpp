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

// One solve from options.t0 to options.t1, no events.
IntegrateResult integrate_segment(OdeSystem& system, bool bdf, double* y, const IntegrateOptions& options,
                                  const std::function<void(double, const double*)>& observer, CvodesCounts* counts) {
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

// One sensitivity solve from options.t0 to options.t1, no events.
IntegrateResult sensitivities_segment(OdeSystem& system, bool bdf, double* y, const SensitivityDirections& directions,
                                      const IntegrateOptions& options,
                                      const std::function<void(double, const double*, const double*)>& observer,
                                      CvodesCounts* counts) {
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

void add_counts(const CvodesCounts& segment, CvodesCounts& total) {
  total.steps += segment.steps;
  total.rhs_evaluations += segment.rhs_evaluations;
  total.jacobian_evaluations += segment.jacobian_evaluations;
}

// The options of the segment from `from` to `to`: its output times, and `to` (where it
// stops) where there are outputs.
IntegrateOptions segment_options(const IntegrateOptions& options, double from, double to) {
  IntegrateOptions segment = options;
  segment.events = nullptr;
  segment.t0 = from;
  segment.t1 = to;
  if (options.output_times.empty()) return segment;
  segment.output_times.clear();
  for (double t : options.output_times)
    if (t > from && t < to) segment.output_times.push_back(t);
  segment.output_times.push_back(to);
  return segment;
}

bool is_output(const IntegrateOptions& options, double t) {
  return options.output_times.empty() || std::find(options.output_times.begin(), options.output_times.end(), t) !=
                                               options.output_times.end();
}

}  // namespace

IntegrateResult cvodes_integrate(OdeSystem& system, bool bdf, double* y, const IntegrateOptions& options,
                                 const std::function<void(double, const double*)>& observer,
                                 CvodesCounts* counts) {
  if (auto why = options.invalid_reason(true)) return {IntegrateStatus::invalid_options, *why};
  if (!options.events) return integrate_segment(system, bdf, y, options, observer, counts);
  if (!options.events->floating().empty()) return {IntegrateStatus::invalid_options, kCvodesTakesNoMovingEvents};
  // A fresh solve between event times (a restart, as CVODES' history does not hold
  // across a jump), the jump between; what an event time shows is after its jump.
  const TimeEvents& events = *options.events;
  const std::vector<double> ends = segment_ends(options);
  CvodesCounts total;
  IntegrateResult result;
  for (std::size_t k = 0; k < ends.size() && result.ok(); ++k) {
    const IntegrateOptions segment = segment_options(options, k ? ends[k - 1] : options.t0, ends[k]);
    const bool jumps = events.find(ends[k]) != TimeEvents::npos;
    CvodesCounts read;
    result = integrate_segment(system, bdf, y, segment, [&](double t, const double* state) {
      if ((k > 0 && t == segment.t0) || (t == segment.t1 && (jumps || !is_output(options, t)))) return;
      observer(t, state);
    }, &read);
    add_counts(read, total);
    if (result.ok() && events.apply_at(ends[k], system.parameters(), y) && is_output(options, ends[k]))
      observer(ends[k], y);
  }
  result.steps = total.steps;
  result.rhs_evaluations = total.rhs_evaluations;
  if (counts) *counts = total;
  return result;
}

IntegrateResult cvodes_sensitivities(OdeSystem& system, bool bdf, double* y,
                                     const SensitivityDirections& directions, const IntegrateOptions& options,
                                     const std::function<void(double, const double*, const double*)>& observer,
                                     CvodesCounts* counts) {
  if (auto why = options.invalid_reason(true)) return {IntegrateStatus::invalid_options, *why};
  const std::size_t n = system.size(), m = directions.count;
  if (m == 0 || directions.initial.size() != m * n || directions.parameters.size() != m * system.param_size())
    return {IntegrateStatus::invalid_options, "sensitivity directions do not match the system"};
  if (!options.events) return sensitivities_segment(system, bdf, y, directions, options, observer, counts);
  if (!options.events->floating().empty()) return {IntegrateStatus::invalid_options, kCvodesTakesNoMovingEvents};
  // As cvodes_integrate, the sensitivities jumping with the state: s+ = r_y s- + r_p dp,
  // on Dual lanes through the events' own expressions.
  const TimeEvents& events = *options.events;
  const std::vector<double> ends = segment_ends(options);
  SensitivityDirections start = directions;
  std::vector<double> s(m * n);
  CvodesCounts total;
  IntegrateResult result;
  for (std::size_t k = 0; k < ends.size() && result.ok(); ++k) {
    IntegrateOptions segment = segment_options(options, k ? ends[k - 1] : options.t0, ends[k]);
    if (segment.output_times.empty()) segment.output_times.push_back(ends[k]);  // where s is read
    const bool jumps = events.find(ends[k]) != TimeEvents::npos;
    CvodesCounts read;
    result = sensitivities_segment(system, bdf, y, start, segment, [&](double t, const double* state, const double* sens) {
      if (t == segment.t1) std::copy(sens, sens + m * n, s.begin());
      if (t == segment.t1 && (jumps || !is_output(options, t))) return;
      observer(t, state, sens);
    }, &read);
    add_counts(read, total);
    if (!result.ok() || !jumps) continue;
    events.apply_at(ends[k], n, system.parameters(), m, directions.parameters.data(), y, s.data());
    start.initial = s;
    if (is_output(options, ends[k])) observer(ends[k], y, s.data());
  }
  result.steps = total.steps;
  result.rhs_evaluations = total.rhs_evaluations;
  if (counts) *counts = total;
  return result;
}

}  // namespace backsweep
