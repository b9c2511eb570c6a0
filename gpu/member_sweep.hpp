#pragma once
// member_gradients(problem, members): ensemble gradients with a member's whole gradient
// inside one thread (one GPU thread a member under CUDA; a host thread a member on
// OpenMP, which is how CI tests it). The host engine's sweep cannot run in a kernel, so
// this is the one part written for it: the smallest sweep, store-all. The thread steps
// with the engine's own pieces: ExplicitRK on ThreadAlgebra (its stages in the thread),
// attempt_step and initial_step for adaptive steps, the same fixed grid, and Neumaier's
// sum for dJ/dp. Each member keeps every accepted state y_n and its step in a slab of
// device memory, laid out step-major (neighbouring threads write neighbouring values),
// then reverses from the last step. Its step sequence, fixed or adaptive, is its own.
//
// For explicit Runge-Kutta methods, models of compile-time size (at most 16 states) with a
// hand-written VJP (both marked BACKSWEEP_HOST_DEVICE), and objectives with a terminal term
// alone (also BACKSWEEP_HOST_DEVICE); no output times. Other problems get invalid_options.
#include <algorithm>
#include <cstddef>
#include <exception>
#include <string>
#include <vector>

#include "adjoint/detail/scalar_gradient.hpp"
#include "adjoint/gradient_problem.hpp"
#include "gpu/member_loop.hpp"
#include "gpu/thread_algebra.hpp"
#include "gpu/thrust_algebra.hpp"
#include "solvers/adaptive_grid.hpp"
#include "solvers/explicit_rk.hpp"
#include "solvers/integrate.hpp"

namespace backsweep::gpu {

namespace detail {

enum class MemberStatus : int { ok, max_steps, step_too_small, non_finite, too_many_kept };

// What a member's thread writes back.
struct MemberOutputs {
  double *value, *dJ_dy0, *dJ_dp;
  std::size_t *steps, *failed_component;
  double* failed_time;
  MemberStatus* status;
};

// The gradient of member b, run by its thread. Every field is copied into the kernel.
template <class M, class Terminal>
struct MemberSweep {
  static constexpr std::size_t n = M::n_state, np = M::n_param;
  static_assert(n <= 16, "a member's thread keeps its stages in local arrays: at most 16 states");
  // The stepper's stages in local arrays, its vectors hold the slopes it carries over.
  using Algebra = ThreadAlgebra<kMaxStages * n>;
  using Stepper = ExplicitRK<M, double, Algebra>;

  M model;
  Terminal terminal;
  ButcherTableau tableau;
  double t0, t1, step, first_step;  // step > 0: fixed steps; first_step 0: Hairer-Wanner's
  StepLimits limits;
  std::size_t members, kept;  // kept: the most accepted steps a member keeps
  const double *y0, *p;       // member-major
  double *states, *times, *sizes;  // step-major: y_k, t_k and h_k of member b at [k members + b]
  MemberOutputs out;

  BACKSWEEP_HOST_DEVICE void operator()(std::size_t b) const {
    Stepper stepper(model, tableau);
    const double* pb = p + b * np;
    double y[n], next[n];
    for (std::size_t i = 0; i < n; ++i) y[i] = y0[b * n + i];
    std::size_t steps = 0;
    const MemberStatus forward = step > 0.0 ? run_fixed(stepper, b, pb, y, next, steps)
                                            : run_adaptive(stepper, b, pb, y, next, steps);
    out.steps[b] = steps;
    out.status[b] = forward;
    if (forward == MemberStatus::ok) backward(stepper, b, pb, y, steps);
  }

 private:
  BACKSWEEP_HOST_DEVICE void keep(std::size_t b, std::size_t k, const double* y_k, const StepInterval& s) const {
    for (std::size_t i = 0; i < n; ++i) states[(k * members + b) * n + i] = y_k[i];
    times[k * members + b] = s.t;
    sizes[k * members + b] = s.h;
    times[(k + 1) * members + b] = s.t_next;
  }
  BACKSWEEP_HOST_DEVICE StepInterval kept_step(std::size_t b, std::size_t k) const {
    return {times[k * members + b], sizes[k * members + b], times[(k + 1) * members + b]};
  }
  // Takes the step's result (next) as y; false where it is not finite.
  BACKSWEEP_HOST_DEVICE bool take(Stepper& stepper, std::size_t b, const StepInterval& s, double* y,
                                  const double* next) const {
    const std::size_t bad = first_non_finite<Algebra>(n, next);
    if (bad < n) {
      out.failed_component[b] = bad;
      out.failed_time[b] = s.t_next;
      return false;
    }
    for (std::size_t i = 0; i < n; ++i) y[i] = next[i];
    stepper.accept();
    return true;
  }

  // FixedGrid's steps with one stop, t1.
  BACKSWEEP_HOST_DEVICE MemberStatus run_fixed(Stepper& stepper, std::size_t b, const double* pb, double* y,
                                               double* next, std::size_t& steps) const {
    const std::size_t count = even_step_count(t1 - t0, step, limits.max_steps);
    if (count == 0) return MemberStatus::max_steps;
    if (count > kept) return MemberStatus::too_many_kept;
    const double h = (t1 - t0) / double(count);
    for (std::size_t k = 0; k < count; ++k) {
      const StepInterval s = k + 1 < count ? uniform_step(t0, h, k) : StepInterval{t0 + double(k) * h, h, t1};
      keep(b, k, y, s);
      stepper.step(s, y, pb, next);
      if (!take(stepper, b, s, y, next)) return MemberStatus::non_finite;
      steps = k + 1;
    }
    return MemberStatus::ok;
  }

  // integrate's adaptive loop with one stop, t1.
  BACKSWEEP_HOST_DEVICE MemberStatus run_adaptive(Stepper& stepper, std::size_t b, const double* pb, double* y,
                                                  double* next, std::size_t& steps) const {
    double h = first_step;
    if (h == 0.0) h = backsweep::detail::initial_step(stepper, t0, t1 - t0, y, pb, limits.rtol, limits.atol, tableau.order);
    AdaptiveState state;
    state.t = t0;
    state.h = std::min(h, limits.max_step);
    state.controller = PIController(std::min(tableau.order, tableau.embedded_order) + 1);
    double error[n];
    StepInterval tried;
    std::size_t failed = kNoComponent;
    while (state.stop == 0) {
      switch (attempt_step(stepper, state, t1, limits, y, pb, next, error, tried, failed)) {
        case AdaptiveOutcome::accepted:
          if (steps == kept) return MemberStatus::too_many_kept;
          keep(b, steps, y, tried);
          if (!take(stepper, b, tried, y, next)) return MemberStatus::non_finite;
          ++steps;
          break;
        case AdaptiveOutcome::rejected: break;
        case AdaptiveOutcome::max_steps: return MemberStatus::max_steps;
        case AdaptiveOutcome::step_too_small: return MemberStatus::step_too_small;
        case AdaptiveOutcome::non_finite:
          out.failed_component[b] = failed;
          out.failed_time[b] = tried.t_next;
          return MemberStatus::non_finite;
      }
    }
    return MemberStatus::ok;
  }

  // The adjoint sweep's seed (the terminal term by Dual lanes, as ScalarGradient takes it)
  // and its steps, last first; dJ/dp in Neumaier's sum.
  BACKSWEEP_HOST_DEVICE void backward(Stepper& stepper, std::size_t b, const double* pb, const double* y_end,
                                      std::size_t steps) const {
    using Lanes = Dual<double, kDerivativeLanes>;
    double lambda[n], sum[np + 1], compensation[np + 1], mu[np + 1];
    Lanes ys[n], ps[np + 1];
    for (std::size_t i = 0; i < n; ++i) ys[i] = Lanes(y_end[i]);
    for (std::size_t j = 0; j < np; ++j) ps[j] = Lanes(pb[j]);
    for (std::size_t first = 0; first < n + np; first += kDerivativeLanes) {
      const std::size_t lanes = std::min<std::size_t>(kDerivativeLanes, n + np - first);
      for (std::size_t k = 0; k < lanes; ++k) seed(ys, ps, first + k, int(k), 1.0);
      const Lanes g = terminal(static_cast<const Lanes*>(ys), static_cast<const Lanes*>(ps));
      out.value[b] = g.v;
      for (std::size_t k = 0; k < lanes; ++k) {
        const std::size_t column = first + k;
        if (column < n) lambda[column] = g.d[k];
        else sum[column - n] = g.d[k];
        seed(ys, ps, column, int(k), 0.0);
      }
    }
    for (std::size_t j = 0; j < np; ++j) compensation[j] = 0.0;
    for (std::size_t k = steps; k-- > 0;) {
      stepper.reverse(kept_step(b, k), states + k * members * n + b * n, pb, lambda, mu);
      for (std::size_t j = 0; j < np; ++j) backsweep::detail::compensated_add(sum[j], compensation[j], mu[j]);
    }
    for (std::size_t i = 0; i < n; ++i) out.dJ_dy0[b * n + i] = lambda[i];
    for (std::size_t j = 0; j < np; ++j) out.dJ_dp[b * np + j] = sum[j] + compensation[j];
  }
  BACKSWEEP_HOST_DEVICE static void seed(Dual<double, kDerivativeLanes>* ys, Dual<double, kDerivativeLanes>* ps,
                                         std::size_t column, int lane, double d) {
    if (column < n) ys[column].d[lane] = d;
    else ps[column - n].d[lane] = d;
  }
};

}  // namespace detail

// One gradient a member, in member order. `steps_kept` bounds the accepted steps a member
// keeps: its slab takes members x steps_kept x (n + 2) doubles of device memory, and a
// member that needs more fails (fixed steps keep exactly their count).
template <Model M, class Terminal>
std::vector<GradientResult<double>> member_gradients(const GradientProblem<M, Objective<Terminal>>& problem,
                                                     const std::vector<EnsembleMember>& members,
                                                     std::size_t steps_kept = 4096) {
  static_assert(HasStaticSizes<M> && HasHandVjp<M>,
                "a member's thread needs a model of compile-time size with a hand-written vjp");
  constexpr std::size_t n = M::n_state, np = M::n_param;
  const IntegrateOptions& options = problem.integrate;
  std::vector<GradientResult<double>> results(members.size());
  auto refuse = [&](const std::string& why) {
    for (auto& result : results) {
      result.status = IntegrateStatus::invalid_options;
      result.message = why;
    }
    return results;
  };
  if (problem.method.family != Method::Family::explicit_rk)
    return refuse(std::string(problem.method.name()) + ": a member's thread runs explicit Runge-Kutta methods only");
  if (options.step <= 0.0 && !problem.method.tableau->adaptive())
    return refuse(std::string(problem.method.name()) + " has no error estimate: give a fixed step");
  if (!options.output_times.empty()) return refuse("a member's thread has no output times");
  for (const auto& member : members)
    if (member.y0.size() != n || member.p.size() != np)
      return refuse("every member needs " + std::to_string(n) + " initial states and " + std::to_string(np) +
                    " parameters");
  const std::size_t count = members.size();
  std::size_t kept = steps_kept;
  if (options.step > 0.0) kept = std::max<std::size_t>(1, even_step_count(options.t1 - options.t0, options.step, options.max_steps));
  if (count == 0) return results;

  // Device memory, and the kernel: without a device (or its memory) every member fails
  // with CUDA's reason.
  try {
    using Vector = ThrustAlgebra::vector<double>;
    Vector y0(count * n), p(count * np), states(count * kept * n), times(count * (kept + 1)), sizes(count * kept);
    for (std::size_t b = 0; b < count; ++b) {
      std::copy(members[b].y0.begin(), members[b].y0.end(), y0.begin() + std::ptrdiff_t(b * n));
      std::copy(members[b].p.begin(), members[b].p.end(), p.begin() + std::ptrdiff_t(b * np));
    }
    Vector value(count), dJ_dy0(count * n), dJ_dp(count * np), failed_time(count);
    ThrustAlgebra::vector<std::size_t> steps(count), failed_component(count);
    ThrustAlgebra::vector<detail::MemberStatus> status(count);
    const detail::MemberSweep<M, Terminal> sweep{
        problem.model, problem.objective.terminal, *problem.method.tableau, options.t0, options.t1, options.step,
        options.initial_step, StepLimits::of(options), count, kept, y0.data(), p.data(), states.data(),
        times.data(), sizes.data(),
        {value.data(), dJ_dy0.data(), dJ_dp.data(), steps.data(), failed_component.data(), failed_time.data(),
         status.data()}};
    for_each_member(count, sweep);  // Thrust waits for the kernel

    for (std::size_t b = 0; b < count; ++b) {
      GradientResult<double>& result = results[b];
      result.diagnostics.method = std::string(problem.method.name());
      result.diagnostics.schedule = "store_all";
      result.diagnostics.steps = result.diagnostics.adjoint_steps = steps[b];
      switch (status[b]) {
        case detail::MemberStatus::ok:
          result.value = value[b];
          result.dJ_dy0.assign(dJ_dy0.begin() + std::ptrdiff_t(b * n), dJ_dy0.begin() + std::ptrdiff_t((b + 1) * n));
          result.dJ_dp.assign(dJ_dp.begin() + std::ptrdiff_t(b * np), dJ_dp.begin() + std::ptrdiff_t((b + 1) * np));
          break;
        case detail::MemberStatus::max_steps:
          result.status = IntegrateStatus::max_steps_reached;
          result.message = "max_steps reached (accepted and rejected steps)";
          break;
        case detail::MemberStatus::step_too_small:
          result.status = IntegrateStatus::step_size_too_small;
          result.message = "the step size fell below the minimum";
          break;
        case detail::MemberStatus::non_finite:
          result.status = IntegrateStatus::non_finite_state;
          result.message = "non-finite value in state component " + std::to_string(failed_component[b]) +
                           " at step " + std::to_string(steps[b] + 1) + ", t = " + std::to_string(failed_time[b]);
          break;
        case detail::MemberStatus::too_many_kept:
          result.status = IntegrateStatus::max_steps_reached;
          result.message = "the member took more than " + std::to_string(kept) +
                           " steps, the most a member keeps (steps_kept)";
          break;
      }
    }
  } catch (const std::exception& error) {
    return refuse(error.what());
  }
  return results;
}

}  // namespace backsweep::gpu
