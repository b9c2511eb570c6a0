#pragma once
// Adaptive steps, one attempt at a time: the error-controlled part of the step grid,
// shared by integrate and the adjoint's recomputations. The whole state of adaptive
// stepping (where it is, the size of the next attempt, the controller's memory, the next
// stop) is a plain AdaptiveState: a checkpoint slot keeps it, and stepping resumes from
// it exactly as it went the first time, so recomputed steps are bitwise the same.
//
// Attempts land exactly on every stop (output times, then t1), stretching by up to 1%
// rather than leaving a sliver; a step's error is the weighted RMS norm of the method's
// embedded estimate (PI control, Hairer-Wanner); rejected attempts count towards
// max_steps, so a run can never loop for ever.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

#include "solvers/integrate_options.hpp"
#include "solvers/step_controller.hpp"
#include "solvers/step_grid.hpp"
#include "solvers/stepper.hpp"
#include "solvers/vector_operations.hpp"

namespace backsweep {

struct AdaptiveState {
  double t = 0.0, h = 0.0;  // where the next attempt starts; its size before landing
  std::size_t stop = 0;     // the next stop
  std::size_t attempts = 0;  // accepted and rejected so far
  PIController controller{1};
};

// What adaptive stepping reads of the options, by value: a GPU thread keeps its own copy
// (gpu/member_sweep.hpp).
struct StepLimits {
  double rtol, atol, min_step, max_step;
  std::size_t max_steps;
  static StepLimits of(const IntegrateOptions& options) {
    return {options.rtol, options.atol, options.min_step, options.max_step, options.max_steps};
  }
};

enum class AdaptiveOutcome { accepted, rejected, max_steps, step_too_small, non_finite };
inline constexpr std::size_t kNoComponent = std::size_t(-1);

// The interval of the next attempt from `state` toward `stop`.
BACKSWEEP_HOST_DEVICE inline StepInterval interval_toward(const AdaptiveState& state, double stop) {
  return state.t + 1.01 * state.h >= stop ? StepInterval{state.t, stop - state.t, stop}
                                          : StepInterval{state.t, state.h, state.t + state.h};
}

// One attempt from y into next toward `stop` (error: a work vector). On `accepted` the
// caller takes next as the new state and `state` has moved on (past the stop if the step
// landed on it: tried.t_next == stop); on `rejected` it has shrunk the step and told the
// stepper. `tried` is the attempt's interval; `failed_component` the first non-finite
// component of the last attempt (kNoComponent if finite), which a collapse of the step
// size is then reported as.
BACKSWEEP_EXEC_CHECK_DISABLE
template <Stepper S>
BACKSWEEP_HOST_DEVICE AdaptiveOutcome attempt_step(S& stepper, AdaptiveState& state, double stop,
                                                   const StepLimits& limits,
                                                   const typename S::scalar_type* y,
                                                   const typename S::scalar_type* p,
                                                   typename S::scalar_type* next,
                                                   typename S::scalar_type* error, StepInterval& tried,
                                                   std::size_t& failed_component) {
  using A = typename S::algebra_type;
  if (state.attempts >= limits.max_steps) return AdaptiveOutcome::max_steps;
  const double min_step = std::max(limits.min_step, 16.0 * 2.2e-16 * std::max(1.0, std::abs(state.t)));
  if (!(state.h >= min_step))  // also catches a NaN step size
    return failed_component != kNoComponent ? AdaptiveOutcome::non_finite : AdaptiveOutcome::step_too_small;
  tried = interval_toward(state, stop);
  const bool lands = tried.t_next == stop;
  stepper.step(tried, y, p, next, error);
  const std::size_t n = stepper.state_size();
  const double norm = error_norm<A>(n, error, y, next, limits.rtol, limits.atol);
  // A non-finite attempt is rejected like any other; if the step size then collapses,
  // the failure is reported as the non-finite value it was.
  const std::size_t bad = first_non_finite<A>(n, next);
  failed_component = bad < n ? bad : kNoComponent;
  const double factor = state.controller.factor(norm);
  ++state.attempts;
  AdaptiveOutcome outcome;
  if (norm <= 1.0) {
    state.t = tried.t_next;
    if (lands) ++state.stop;
    // A step shortened to land keeps the earlier proposal if that was longer.
    state.h = lands ? std::max(state.h, tried.h * factor) : tried.h * factor;
    outcome = AdaptiveOutcome::accepted;
  } else {
    stepper.reject();
    state.h = tried.h * factor;
    outcome = AdaptiveOutcome::rejected;
  }
  state.h = std::min(state.h, limits.max_step);
  return outcome;
}

// The adaptive steps of some options: their stops (output times, then t1) and limits.
class AdaptiveGrid {
 public:
  using Outcome = AdaptiveOutcome;
  static constexpr std::size_t kNone = kNoComponent;

  // error_order: min(order, embedded order) + 1, the exponent of the local error.
  AdaptiveGrid(const IntegrateOptions& options, int error_order)
      : options_(options), limits_(StepLimits::of(options)), stops_(stop_times(options)),
        error_order_(error_order) {}

  AdaptiveState start(double first_step) const {
    AdaptiveState state;
    state.t = options_.t0;
    state.h = std::min(first_step, options_.max_step);
    state.controller = PIController(error_order_);
    return state;
  }
  bool done(const AdaptiveState& state) const { return state.stop == stops_.size(); }
  double stop(const AdaptiveState& state) const { return stops_[state.stop]; }

  // The interval the next attempt from `state` takes.
  StepInterval next_interval(const AdaptiveState& state) const {
    return interval_toward(state, stops_[state.stop]);
  }

  // One attempt toward the next stop (attempt_step).
  template <Stepper S>
  Outcome attempt(S& stepper, AdaptiveState& state, const typename S::scalar_type* y,
                  const typename S::scalar_type* p, typename S::scalar_type* next,
                  typename S::scalar_type* error, StepInterval& tried,
                  std::size_t& failed_component) const {
    return attempt_step(stepper, state, stops_[state.stop], limits_, y, p, next, error, tried,
                        failed_component);
  }

 private:
  const IntegrateOptions& options_;
  StepLimits limits_;
  std::vector<double> stops_;
  int error_order_;
};

}  // namespace backsweep
