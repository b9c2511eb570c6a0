#pragma once
// member_gradients(problem, members): ensemble gradients with a member's whole gradient
// inside one thread (one GPU thread a member under CUDA; a host thread a member on
// OpenMP, which is how CI tests it). The host engine's sweep cannot run in a kernel, so
// this is the one part written for it: the smallest sweep, store-all. The thread steps
// with the engine's own pieces: ExplicitRK on ThreadAlgebra (its stages in the thread),
// attempt_step and initial_step for adaptive steps, the same fixed grid, and Neumaier's
// sum for dJ/dp. Each member keeps every accepted state y_n and its step in a slab of
// device memory (CUDA managed memory), laid out step-major (neighbouring threads write
// neighbouring values), then reverses from the last step. Its step sequence, fixed or
// adaptive, is its own; NaN and Inf are reported as the engine reports them.
//
// For explicit Runge-Kutta methods; models of compile-time size (at most 16 states and 16
// parameters) with a hand-written VJP; objectives with a terminal term alone, taken by
// Dual lanes (a term's own gradient() is not used), and no observation times. The model
// and the term are copied into the kernel: trivially copyable, marked
// BACKSWEEP_HOST_DEVICE (a template also instantiated with host-only scalars, such as
// the dependency tracer, after BACKSWEEP_EXEC_CHECK_DISABLE). Methods and options it does
// not take get invalid_options; no progress is reported.
#include <algorithm>
#include <cstddef>
#include <exception>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "adjoint/detail/scalar_gradient.hpp"
#include "adjoint/gradient_problem.hpp"
#include "gpu/member_loop.hpp"
#include "gpu/system.hpp"
#include "gpu/thread_algebra.hpp"
#include "gpu/thrust_algebra.hpp"
#include "solvers/adaptive_grid.hpp"
#include "solvers/explicit_rk.hpp"
#include "solvers/integrate.hpp"

namespace BACKSWEEP_GPU_NAMESPACE {

namespace detail {

enum class MemberStatus : int { ok, max_steps, step_too_small, too_many_kept, forward, terminal, backward };

// What a member's thread writes back; failed_*: where a NaN or Inf appeared (NonFinite's
// step, component and time, as the engine reports them).
struct MemberOutputs {
  double *value, *dJ_dy0, *dJ_dp;
  std::size_t *steps, *failed_step, *failed_component;
  double* failed_time;
  MemberStatus* status;
};

// The gradient of member b, run by its thread. Every field is copied into the kernel.
template <class M, class Terminal>
struct MemberSweep {
  static constexpr std::size_t n = M::n_state, np = M::n_param;
  static_assert(n <= 16 && np <= 16,
                "a member's thread keeps its stages and derivatives in local arrays: at most 16 states and 16 "
                "parameters");
  static_assert(std::is_trivially_copyable_v<M> && std::is_trivially_copyable_v<Terminal>,
                "the model and the terminal term are copied into the kernel");
  // The stepper's stages in local arrays, its vectors hold the slopes it carries over.
  using Algebra = ThreadAlgebra<kMaxStages * n>;
  using Stepper = ExplicitRK<M, double, Algebra>;

  M model;
  Terminal terminal;
  ButcherTableau tableau;
  double t0, t1, step, first_step;  // step > 0: fixed steps (`kept` of them); first_step 0: Hairer-Wanner's
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
    times[b] = t0;  // t_0; each kept step writes its t_next, the next step's t
    std::size_t steps = 0;
    MemberStatus status = step > 0.0 ? run_fixed(stepper, b, pb, y, next, steps)
                                     : run_adaptive(stepper, b, pb, y, next, steps);
    if (status == MemberStatus::ok) status = backward(stepper, b, pb, y, steps);
    out.steps[b] = steps;
    out.status[b] = status;
  }

 private:
  BACKSWEEP_HOST_DEVICE void keep(std::size_t b, std::size_t k, const double* y_k, const StepInterval& s) const {
    for (std::size_t i = 0; i < n; ++i) states[(k * members + b) * n + i] = y_k[i];
    sizes[k * members + b] = s.h;
    times[(k + 1) * members + b] = s.t_next;
  }
  BACKSWEEP_HOST_DEVICE StepInterval kept_step(std::size_t b, std::size_t k) const {
    return {times[k * members + b], sizes[k * members + b], times[(k + 1) * members + b]};
  }
  BACKSWEEP_HOST_DEVICE MemberStatus failed(std::size_t b, MemberStatus status, std::size_t step_index,
                                             std::size_t component, double time) const {
    out.failed_step[b] = step_index;
    out.failed_component[b] = component;
    out.failed_time[b] = time;
    return status;
  }
  // Takes the step's result (next) as y, the member's step `steps` + 1; false where it is
  // not finite.
  BACKSWEEP_HOST_DEVICE bool take(Stepper& stepper, std::size_t b, const StepInterval& s, std::size_t steps,
                                  double* y, const double* next) const {
    const std::size_t bad = first_non_finite<Algebra>(n, next);
    if (bad < n) {
      failed(b, MemberStatus::forward, steps + 1, bad, s.t_next);
      return false;
    }
    for (std::size_t i = 0; i < n; ++i) y[i] = next[i];
    stepper.accept();
    return true;
  }

  // FixedGrid's steps with one stop, t1: `kept` of them (counted on the host).
  BACKSWEEP_HOST_DEVICE MemberStatus run_fixed(Stepper& stepper, std::size_t b, const double* pb, double* y,
                                               double* next, std::size_t& steps) const {
    const double h = (t1 - t0) / double(kept);
    for (std::size_t k = 0; k < kept; ++k) {
      const StepInterval s = segment_step(t0, h, k, kept, t1);
      keep(b, k, y, s);
      stepper.step(s, y, pb, next);
      if (!take(stepper, b, s, steps, y, next)) return MemberStatus::forward;
      steps = k + 1;
    }
    return MemberStatus::ok;
  }

  // integrate's adaptive loop with one stop, t1.
  BACKSWEEP_HOST_DEVICE MemberStatus run_adaptive(Stepper& stepper, std::size_t b, const double* pb, double* y,
                                                  double* next, std::size_t& steps) const {
    double h = first_step;
    if (h == 0.0)
      h = backsweep::detail::initial_step(stepper, t0, t1 - t0, y, pb, limits.rtol, limits.atol, tableau.order);
    AdaptiveState state;
    state.t = t0;
    state.h = std::min(h, limits.max_step);
    state.controller = PIController(std::min(tableau.order, tableau.embedded_order) + 1);
    double error[n];
    StepInterval tried;
    std::size_t bad = kNoComponent;
    while (state.stop == 0) {
      switch (attempt_step(stepper, state, t1, limits, y, pb, next, error, tried, bad)) {
        case AdaptiveOutcome::accepted:
          if (steps == kept) return MemberStatus::too_many_kept;
          keep(b, steps, y, tried);
          if (!take(stepper, b, tried, steps, y, next)) return MemberStatus::forward;
          ++steps;
          break;
        case AdaptiveOutcome::rejected: break;
        case AdaptiveOutcome::max_steps: return MemberStatus::max_steps;
        case AdaptiveOutcome::step_too_small: return MemberStatus::step_too_small;
        case AdaptiveOutcome::non_finite: return failed(b, MemberStatus::forward, steps + 1, bad, tried.t_next);
      }
    }
    return MemberStatus::ok;
  }

  // The adjoint sweep's seed (the terminal term by Dual lanes, as ScalarGradient takes it)
  // and its steps, last first; dJ/dp in Neumaier's sum. NaN and Inf are checked where the
  // engine's sweep checks them: the terminal term, then the adjoint after every step.
  BACKSWEEP_HOST_DEVICE MemberStatus backward(Stepper& stepper, std::size_t b, const double* pb,
                                              const double* y_end, std::size_t steps) const {
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
    const std::size_t bad = first_non_finite<Algebra>(n, static_cast<const double*>(lambda));
    if (bad < n || first_non_finite<Algebra>(np, static_cast<const double*>(sum)) < np ||
        first_non_finite<Algebra>(1, out.value + b) < 1)
      return failed(b, MemberStatus::terminal, 0, bad, t1);
    for (std::size_t j = 0; j < np; ++j) compensation[j] = 0.0;
    for (std::size_t k = steps; k-- > 0;) {
      const StepInterval s = kept_step(b, k);
      stepper.reverse(s, states + k * members * n + b * n, pb, lambda, mu);
      for (std::size_t j = 0; j < np; ++j) backsweep::detail::compensated_add(sum[j], compensation[j], mu[j]);
      if (const std::size_t at = first_non_finite<Algebra>(n, static_cast<const double*>(lambda)); at < n)
        return failed(b, MemberStatus::backward, k, at, s.t);
    }
    for (std::size_t i = 0; i < n; ++i) out.dJ_dy0[b * n + i] = lambda[i];
    for (std::size_t j = 0; j < np; ++j) out.dJ_dp[b * np + j] = sum[j] + compensation[j];
    return MemberStatus::ok;
  }
  BACKSWEEP_HOST_DEVICE static void seed(Dual<double, kDerivativeLanes>* ys, Dual<double, kDerivativeLanes>* ps,
                                         std::size_t column, int lane, double d) {
    if (column < n) ys[column].d[lane] = d;
    else ps[column - n].d[lane] = d;
  }
};

}  // namespace detail

// One gradient a member, in member order. `steps_kept` bounds the accepted steps a member
// keeps with adaptive steps (at most max_steps): its slab takes members x steps_kept x
// (n + 2) doubles of device memory, and a member that needs more fails. Fixed steps keep
// exactly their count.
template <Model M, class Terminal>
std::vector<GradientResult<double>> member_gradients(const GradientProblem<M, Objective<Terminal>>& problem,
                                                     const std::vector<EnsembleMember>& members,
                                                     std::size_t steps_kept = 4096) {
  static_assert(HasStaticSizes<M> && HasHandVjp<M>,
                "a member's thread needs a model of compile-time size with a hand-written vjp");
  constexpr std::size_t n = M::n_state, np = M::n_param;
  // The engine's options, as gradient() reads them.
  const IntegrateOptions options = backsweep::detail::landing_options(problem.integrate, problem.objective);
  std::vector<GradientResult<double>> results(members.size());
  auto refuse = [&](IntegrateStatus status, const std::string& why) {
    for (auto& result : results) {
      result.status = status;
      result.message = why;
    }
    return results;
  };
  const auto invalid = IntegrateStatus::invalid_options;
  if (problem.method.family != Method::Family::explicit_rk)
    return refuse(invalid, std::string(problem.method.name()) +
                               ": a member's thread runs explicit Runge-Kutta methods only");
  if (auto why = options.invalid_reason(problem.method.adaptive())) return refuse(invalid, *why);
  if (!options.output_times.empty()) return refuse(invalid, "a member's thread has no observation times");
  for (const auto& member : members)
    if (member.y0.size() != n || member.p.size() != np)
      return refuse(invalid, "every member needs " + std::to_string(n) + " initial states and " +
                                 std::to_string(np) + " parameters");
  const std::size_t count = members.size();
  std::size_t kept = std::min(steps_kept, options.max_steps);  // rejected attempts count towards max_steps
  if (options.step > 0.0) {
    const FixedGrid grid(options);
    if (grid.too_many_steps())
      return refuse(IntegrateStatus::max_steps_reached, "the fixed step needs more than max_steps steps");
    kept = grid.size();
  }
  if (count == 0) return results;
  if (kept == 0 || count > std::numeric_limits<std::size_t>::max() / (kept + 1) / (n + 2))
    return refuse(invalid, "steps_kept x members is too large to address");

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
    ThrustAlgebra::vector<std::size_t> steps(count), failed_step(count), failed_component(count);
    ThrustAlgebra::vector<detail::MemberStatus> status(count);
    const detail::MemberSweep<M, Terminal> sweep{
        problem.model, problem.objective.terminal, *problem.method.tableau, options.t0, options.t1, options.step,
        options.initial_step, StepLimits::of(options), count, kept, y0.data(), p.data(), states.data(),
        times.data(), sizes.data(),
        {value.data(), dJ_dy0.data(), dJ_dp.data(), steps.data(), failed_step.data(), failed_component.data(),
         failed_time.data(), status.data()}};
    for_each_member(count, sweep);  // Thrust waits for the kernel

    for (std::size_t b = 0; b < count; ++b) {
      GradientResult<double>& result = results[b];
      result.diagnostics.method = std::string(problem.method.name());
      result.diagnostics.schedule = "store_all";
      result.diagnostics.steps = result.diagnostics.adjoint_steps = steps[b];
      switch (status[b]) {
        case detail::MemberStatus::ok:
          result.value = value[b];
          result.dJ_dy0.assign(dJ_dy0.data() + b * n, dJ_dy0.data() + (b + 1) * n);
          result.dJ_dp.assign(dJ_dp.data() + b * np, dJ_dp.data() + (b + 1) * np);
          break;
        case detail::MemberStatus::max_steps:
          result.status = IntegrateStatus::max_steps_reached;
          result.message = "max_steps reached (accepted and rejected steps)";
          break;
        case detail::MemberStatus::step_too_small:
          result.status = IntegrateStatus::step_size_too_small;
          result.message = "the step size fell below the minimum";
          break;
        case detail::MemberStatus::forward:
        case detail::MemberStatus::terminal:
        case detail::MemberStatus::backward: {
          const char* phase = status[b] == detail::MemberStatus::forward    ? "forward"
                              : status[b] == detail::MemberStatus::terminal ? "terminal"
                                                                             : "backward";
          result.diagnostics.nonfinite = NonFinite{phase, failed_step[b], failed_component[b], failed_time[b]};
          result.status = IntegrateStatus::non_finite_state;
          result.message = result.diagnostics.nonfinite->describe();
          break;
        }
        case detail::MemberStatus::too_many_kept:
          result.status = IntegrateStatus::max_steps_reached;
          result.message = "the member took more than " + std::to_string(kept) +
                           " steps, the most a member keeps (steps_kept)";
          break;
      }
    }
  } catch (const std::exception& error) {
    return refuse(invalid, error.what());
  }
  return results;
}

}  // namespace BACKSWEEP_GPU_NAMESPACE
