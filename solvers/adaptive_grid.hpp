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

class AdaptiveGrid {
 public:
  enum class Outcome { accepted, rejected, max_steps, step_too_small, non_finite };
  static constexpr std::size_t kNone = std::size_t(-1);

  // error_order: min(order, embedded order) + 1, the exponent of the local error.
  AdaptiveGrid(const IntegrateOptions& options, int error_order)
      : options_(options), stops_(stop_times(options)), error_order_(error_order) {}

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
    const double stop = stops_[state.stop];
    return state.t + 1.01 * state.h >= stop ? StepInterval{state.t, stop - state.t, stop}
                                            : StepInterval{state.t, state.h, state.t + state.h};
  }

  // One attempt from y into next (error: a work vector). On `accepted` the caller takes
  // next as the new state and `state` has moved on; on `rejected` it has shrunk the step
  // and told the stepper. `tried` is the attempt's interval; `failed_component` the first
  // non-finite component of the last attempt (kNone if finite), which a collapse of the
  // step size is then reported as.
  template <Stepper S>
  Outcome attempt(S& stepper, AdaptiveState& state, const typename S::scalar_type* y,
                  const typename S::scalar_type* p, typename S::scalar_type* next,
                  typename S::scalar_type* error, StepInterval& tried,
                  std::size_t& failed_component) const {
    using A = typename S::algebra_type;
    if (state.attempts >= options_.max_steps) return Outcome::max_steps;
    const double min_step =
        std::max(options_.min_step, 16.0 * 2.2e-16 * std::max(1.0, std::abs(state.t)));
    if (!(state.h >= min_step))  // also catches a NaN step size
      return failed_component != kNone ? Outcome::non_finite : Outcome::step_too_small;
    tried = next_interval(state);
    const bool lands = tried.t_next == stops_[state.stop];
    stepper.step(tried, y, p, next, error);
    const std::size_t n = stepper.state_size();
    const double norm = error_norm<A>(n, error, y, next, options_.rtol, options_.atol);
    // A non-finite attempt is rejected like any other; if the step size then collapses,
    // the failure is reported as the non-finite value it was.
    const std::size_t bad = first_non_finite<A>(n, next);
    failed_component = bad < n ? bad : kNone;
    const double factor = state.controller.factor(norm);
    ++state.attempts;
    Outcome outcome;
    if (norm <= 1.0) {
      state.t = tried.t_next;
      if (lands) ++state.stop;
      // A step shortened to land keeps the earlier proposal if that was longer.
      state.h = lands ? std::max(state.h, tried.h * factor) : tried.h * factor;
      outcome = Outcome::accepted;
    } else {
      stepper.reject();
      state.h = tried.h * factor;
      outcome = Outcome::rejected;
    }
    state.h = std::min(state.h, options_.max_step);
    return outcome;
  }

 private:
  const IntegrateOptions& options_;
  std::vector<double> stops_;
  int error_order_;
};

}  // namespace backsweep
