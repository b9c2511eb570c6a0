#pragma once
// integrate: drives any Stepper (solvers/stepper.hpp) from t0 to t1 on the step grid of
// solvers/step_grid.hpp: fixed steps, or adaptive steps (embedded error estimate, PI
// controller) landing exactly on the output times; replay() retakes a recorded
// StepSequence. Failures (too many steps, step size underflow, NaN/Inf) come back in the
// result with the step, time and component; nothing aborts. Work vectors are allocated
// once before the loop.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "solvers/adaptive_grid.hpp"
#include "solvers/integrate_options.hpp"
#include "solvers/step_controller.hpp"
#include "solvers/step_grid.hpp"
#include "solvers/stepper.hpp"
#include "solvers/vector_operations.hpp"

namespace backsweep {

// Does nothing after an accepted step (the default for integrate's on_step).
struct NoStepHook {
  template <class T>
  void operator()(const StepInterval&, const T*) const {}
};

namespace detail {

// Hairer-Wanner's starting step (Solving ODEs I, II.4): two RHS evaluations.
BACKSWEEP_EXEC_CHECK_DISABLE
template <Stepper S, class T>
BACKSWEEP_HOST_DEVICE double initial_step(S& stepper, double t0, double span, const T* y, const T* p,
                                          double rtol, double atol, int order) {
  using A = typename S::algebra_type;
  const std::size_t n = stepper.state_size();
  typename A::template vector<T> f0(n), y1(n), f1(n);
  stepper.evaluate(t0, y, p, f0.data());
  auto scaled_norm = [&](const T* v) {
    return scaled_rms_norm<A>(n, v, y, rtol, atol);
  };
  const double d0 = scaled_norm(y), d1 = scaled_norm(f0.data());
  double h0 = (d0 < 1e-5 || d1 < 1e-5) ? 1e-6 : 0.01 * d0 / d1;
  h0 = std::min(h0, span);
  copy<A>(n, y, y1.data());
  axpy<A>(n, h0, static_cast<const T*>(f0.data()), y1.data());
  stepper.evaluate(t0 + h0, y1.data(), p, f1.data());
  axpy<A>(n, -1.0, static_cast<const T*>(f0.data()), f1.data());
  const double d2 = scaled_norm(f1.data()) / h0;
  const double h1 = std::max(d1, d2) <= 1e-15 ? std::max(1e-6, h0 * 1e-3)
                                              : std::pow(0.01 / std::max(d1, d2), 1.0 / (order + 1));
  return std::min(std::min(100.0 * h0, h1), span);
}

// One integration. The fixed and adaptive loops are separate functions so that each
// stays small enough for the compiler to unroll the inlined stepper fully. Time and step
// count are locals of the loops: stores into the result (which the compiler must assume
// may alias the state) would force reloads every step.
template <Stepper S, class Observer, class StepHook>
class Integration {
 public:
  using T = typename S::scalar_type;
  using A = typename S::algebra_type;

  Integration(S& stepper, T* y, const T* p, const IntegrateOptions& options, Observer& observe,
              StepHook& on_step)
      : stepper_(stepper), y_(y), p_(p), options_(options), observe_(observe),
        on_step_(on_step), n_(stepper.state_size()), next_(n_),
        every_step_(options.output_times.empty()), rhs_before_(stepper.rhs_evaluations()) {}

  IntegrateResult run() {
    stepper_.restart();
    observe_(options_.t0, static_cast<const T*>(y_));
    return options_.step > 0.0 ? run_fixed() : run_adaptive();
  }

  // Retakes the steps of `sequence` (observer calls: after every step).
  IntegrateResult replay(const StepSequence& sequence) {
    stepper_.restart();
    return with_local_state([&](T* y, T* next) {
      std::size_t steps = 0;
      for (std::size_t n = 0; n < sequence.size(); ++n) {
        const StepInterval step = sequence[n];
        stepper_.step(step, y, p_, next);
        if (!accept(step, steps, y, next, true)) return non_finite(step, steps);
      }
      return finish(IntegrateStatus::success, sequence.t_end(), steps, "");
    });
  }

 private:
  // A static model's state size (0 for the others).
  static constexpr std::size_t kStatic = [] {
    if constexpr (requires { typename S::model_type; })
      return static_state_size<typename S::model_type>;
    return std::size_t{0};
  }();

  // The state's size: a constant for static models, else the one read at the start (a
  // virtual call each step behind AnyStepper).
  std::size_t state_size() const {
    if constexpr (kStatic > 0) return kStatic;
    else return n_;
  }

  // Small static models step in local arrays, which the compiler keeps in registers; y
  // is written back at the end (and is current whenever the observer sees it).
  template <class Loop>
  IntegrateResult with_local_state(Loop&& loop) {
    if constexpr (kStatic > 0 && kStatic <= 16 && host_vectors<A> && runs_in_calling_thread<A>) {
      std::array<T, kStatic> state, next;
      std::copy(y_, y_ + kStatic, state.begin());
      IntegrateResult result = loop(state.data(), next.data());
      std::copy(state.begin(), state.end(), y_);
      return result;
    } else {
      return loop(y_, next_.data());
    }
  }

  IntegrateResult run_fixed() {
    return with_local_state([&](T* y, T* next) {
      std::size_t steps = 0;
      FixedGrid grid(options_);
      if (grid.too_many_steps()) {  // known before any step: said so, not "at step 0"
        IntegrateResult refused = finish(IntegrateStatus::max_steps_reached, grid.failed_at(), 0, "");
        refused.message = too_many_fixed_steps(options_);  // whole: no "at step 0" appended
        return refused;
      }
      for (StepInterval step; grid.next(step);) {
        stepper_.step(step, y, p_, next);
        if (!accept(step, steps, y, next, every_step_)) return non_finite(step, steps);
        if (grid.at_stop() && !every_step_ && is_output(step.t_next)) observe_(step.t_next, static_cast<const T*>(y));
      }
      return finish(IntegrateStatus::success, options_.t1, steps, "");
    });
  }

  IntegrateResult run_adaptive() {
    const StepperTraits traits = stepper_.traits();
    const AdaptiveGrid grid(options_, std::min(traits.order, traits.embedded_order) + 1);
    typename A::template vector<T> error(n_);
    T* const next = next_.data();
    std::size_t steps = 0;
    double h = options_.initial_step;
    if (h == 0.0)
      h = initial_step(stepper_, options_.t0, options_.t1 - options_.t0, y_, p_, options_.rtol,
                       options_.atol, traits.order);
    AdaptiveState state = grid.start(h);
    StepInterval tried;
    while (!grid.done(state)) {
      const double stop = grid.stop(state);
      switch (grid.attempt(stepper_, state, y_, p_, next, error.data(), tried, failed_component_)) {
        case AdaptiveGrid::Outcome::accepted:
          if (!accept(tried, steps, y_, next, every_step_)) return non_finite(tried, steps);
          if (tried.t_next == stop && !every_step_ && is_output(stop)) observe_(stop, static_cast<const T*>(y_));
          break;
        case AdaptiveGrid::Outcome::rejected:
          ++rejected_steps_;
          break;
        case AdaptiveGrid::Outcome::max_steps:
          return finish(IntegrateStatus::max_steps_reached, state.t, steps,
                        "max_steps reached (accepted and rejected steps)");
        case AdaptiveGrid::Outcome::step_too_small:
          return finish(IntegrateStatus::step_size_too_small, state.t, steps,
                        "step size " + std::to_string(state.h) + " fell below the minimum");
        case AdaptiveGrid::Outcome::non_finite:
          return non_finite(tried, steps);
      }
    }
    return finish(IntegrateStatus::success, state.t, steps, "");
  }

  // Whether a stop is one the observer is shown: an output time or t1, not an event's.
  bool is_output(double t) const {
    return !options_.events || t == options_.t1 ||
           std::binary_search(options_.output_times.begin(), options_.output_times.end(), t);
  }

  // Moves the step's result (in next) into y; false if it is not finite.
  BACKSWEEP_INLINE bool accept(const StepInterval& step, std::size_t& steps, T* y, const T* next,
                               bool observe) {
    const std::size_t n = state_size();
    const std::size_t component = first_non_finite<A>(n, next);
    if (component < n) [[unlikely]] {
      failed_component_ = component;
      if constexpr (!std::is_same_v<T, double> && host_vectors<A>)
        derivative_only_ = std::isfinite(value_of(next[component]));
      return false;
    }
    copy<A>(n, next, y);
    stepper_.accept();
    ++steps;
    if (options_.progress) options_.progress->reached_forward(step.t_next);
    on_step_(step, static_cast<const T*>(y));
    if (observe) observe_(step.t_next, static_cast<const T*>(y));
    return true;
  }

  // The step that went from `step.t` to a non-finite state at step.t_next.
  IntegrateResult non_finite(const StepInterval& step, std::size_t steps) {
    std::ostringstream what;
    what << (derivative_only_ ? "non-finite derivative of state component " : "non-finite value in state component ")
         << failed_component_;
    if constexpr (requires { stepper_.newton_failed(); })
      if (stepper_.newton_failed()) {
        what.str("");
        what << "Newton's iteration on the stage equations did not converge (h = " << step.h;
        if constexpr (requires { stepper_.linear_failure(); })
          if (const std::string linear = stepper_.linear_failure(); !linear.empty()) what << "; " << linear;
        what << "): take smaller steps";
      }
    IntegrateResult result = finish(IntegrateStatus::non_finite_state, step.t, steps, what.str());
    if (!result.message.starts_with("Newton")) {  // the gradient's convention: the step that made it, its end
      what << " at step " << steps + 1 << ", t = " << step.t_next;
      if (options_.events) what << options_.events->just_after(step.t_next);
      result.message = what.str();
    }
    result.failed_step = steps;
    result.failed_component = failed_component_;
    result.failed_time = step.t_next;
    result.derivative_only = derivative_only_;
    return result;
  }

  IntegrateResult finish(IntegrateStatus status, double t, std::size_t steps,
                         const std::string& what) {
    IntegrateResult result;
    result.status = status;
    result.t = t;
    result.steps = steps;
    result.rejected_steps = rejected_steps_;
    result.rhs_evaluations = stepper_.rhs_evaluations() - rhs_before_;
    if (status != IntegrateStatus::success) {
      std::ostringstream message;
      message << what << " at step " << steps << ", t = " << t;
      result.message = message.str();
    }
    return result;
  }

  S& stepper_;
  T* const y_;
  const T* const p_;
  const IntegrateOptions& options_;
  Observer& observe_;
  StepHook& on_step_;
  const std::size_t n_;
  typename A::template vector<T> next_;
  const bool every_step_;
  const std::size_t rhs_before_;
  static constexpr std::size_t kNone = AdaptiveGrid::kNone;
  std::size_t rejected_steps_ = 0, failed_component_ = kNone;
  bool derivative_only_ = false;
};

inline std::optional<IntegrateResult> invalid(const IntegrateOptions& options, bool adaptive) {
  if (auto why = options.invalid_reason(adaptive)) {
    IntegrateResult result;
    result.status = IntegrateStatus::invalid_options;
    result.t = options.t0;
    result.message = *why;
    return result;
  }
  return std::nullopt;
}

}  // namespace detail

// Integrates y from options.t0 to options.t1 in place (y holds y(t0) on entry and the
// state reached on return). observe(t, y) is called at t0, then at every output time, or
// after every accepted step when there are none; on_step(step, y_next) after every
// accepted step (to record the grid, or keep states). Nothing aborts: failures (invalid
// options, too many steps, step-size underflow, NaN/Inf) come back in the result.
template <Stepper S, class Observer, class StepHook = NoStepHook>
IntegrateResult integrate(S& stepper, typename S::scalar_type* y,
                          const typename S::scalar_type* p, const IntegrateOptions& options,
                          Observer&& observe, StepHook&& on_step = {}) {
  if (auto failed = detail::invalid(options, stepper.traits().adaptive())) return *failed;
  return detail::Integration<S, std::remove_reference_t<Observer>, std::remove_reference_t<StepHook>>(
             stepper, y, p, options, observe, on_step)
      .run();
}

template <Stepper S>
IntegrateResult integrate(S& stepper, typename S::scalar_type* y,
                          const typename S::scalar_type* p, const IntegrateOptions& options) {
  return integrate(stepper, y, p, options, [](double, const auto*) {});
}

// Retakes the steps of `sequence` from y (in place); on_step(step, y_next) after each.
template <Stepper S, class StepHook>
IntegrateResult replay(S& stepper, typename S::scalar_type* y, const typename S::scalar_type* p,
                       const StepSequence& sequence, StepHook&& on_step, RunProgress* progress = nullptr) {
  IntegrateOptions options;
  options.t0 = sequence.t_start();
  options.progress = progress;
  auto observe = [](double, const auto*) {};
  return detail::Integration<S, decltype(observe), std::remove_reference_t<StepHook>>(
             stepper, y, p, options, observe, on_step)
      .replay(sequence);
}

}  // namespace backsweep
