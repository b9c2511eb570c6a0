#pragma once
// integrate: drives an ExplicitRK stepper from t0 to t1, with fixed steps or adaptive
// steps (embedded error estimate, PI controller), landing exactly on the output times.
// Failures (too many steps, step size underflow, NaN/Inf) come back in the result with
// the step, time and component; nothing aborts. Work vectors are allocated once before
// the loop.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "solvers/explicit_rk.hpp"
#include "solvers/integrate_options.hpp"
#include "solvers/step_controller.hpp"

namespace backsweep {

namespace detail {

// The times every step sequence must land on: output times after t0, then t1.
inline std::vector<double> stop_times(const IntegrateOptions& options) {
  std::vector<double> stops;
  for (double t : options.output_times)
    if (t > options.t0) stops.push_back(t);
  if (stops.empty() || stops.back() < options.t1) stops.push_back(options.t1);
  return stops;
}

// The first non-finite component of y, or n when all are finite. The fast path is one
// test of the sum (NaN or Inf anywhere makes it non-finite); only then is y scanned.
// The number of even fixed steps, no longer than `step`, that cover `span` and end
// exactly on its end; 0 when that needs more than `budget` steps (checked before any
// cast, so a tiny step cannot overflow).
inline std::size_t even_step_count(double span, double step, std::size_t budget) {
  const double wanted = std::max(1.0, std::ceil(span / step * (1.0 - 1e-12)));
  return wanted <= double(budget) ? static_cast<std::size_t>(wanted) : 0;
}

template <class T>
std::size_t first_non_finite(const T* y, std::size_t n) {
  using std::isfinite;
  double sum = 0.0;
  for (std::size_t i = 0; i < n; ++i) sum += value_of(y[i]);
  if (std::isfinite(sum) && (!is_dual_v<T> || [&] {
        for (std::size_t i = 0; i < n; ++i)
          if (!isfinite(y[i])) return false;
        return true;
      }()))
    return n;
  for (std::size_t i = 0; i < n; ++i)
    if (!isfinite(y[i])) return i;
  return n;  // the sum overflowed, but every component is finite
}

// Hairer-Wanner's starting step (Solving ODEs I, II.4): two RHS evaluations. Leaves
// f(t0, y0) in the stepper's first-slope buffer.
template <class Stepper, class T>
double initial_step(Stepper& stepper, double t0, double span, const T* y, const T* p,
                    double rtol, double atol, std::vector<T>& y1, std::vector<T>& f1) {
  const std::size_t n = stepper.state_size();
  T* f0 = stepper.stage_slope(0);
  stepper.evaluate(t0, y, p, f0);
  auto scaled_norm = [&](auto&& component) {
    double sum = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
      const double scale = atol + rtol * std::abs(value_of(y[i]));
      if (scale == 0.0) continue;  // atol = 0 and a zero component: no information
      const double r = component(i) / scale;
      sum += r * r;
    }
    return std::sqrt(sum / double(n));
  };
  const double d0 = scaled_norm([&](std::size_t i) { return value_of(y[i]); });
  const double d1 = scaled_norm([&](std::size_t i) { return value_of(f0[i]); });
  double h0 = (d0 < 1e-5 || d1 < 1e-5) ? 1e-6 : 0.01 * d0 / d1;
  h0 = std::min(h0, span);
  for (std::size_t i = 0; i < n; ++i) y1[i] = y[i] + h0 * f0[i];
  stepper.evaluate(t0 + h0, y1.data(), p, f1.data());
  const double d2 =
      scaled_norm([&](std::size_t i) { return value_of(f1[i]) - value_of(f0[i]); }) / h0;
  const int order = stepper.tableau().order;
  const double h1 = std::max(d1, d2) <= 1e-15
                        ? std::max(1e-6, h0 * 1e-3)
                        : std::pow(0.01 / std::max(d1, d2), 1.0 / (order + 1));
  stepper.reject();  // f(t0, y0) is in place for the first step
  return std::min({100.0 * h0, h1, span});
}

// One integration. The fixed and adaptive loops are separate functions so that each
// stays small enough for the compiler to unroll the inlined stepper fully. Time and step
// count are locals of the loops: stores into the result (which the compiler must assume
// may alias the state) would force reloads every step.
template <class Stepper, class T, class Observer>
class Integration {
 public:
  Integration(Stepper& stepper, T* y, const T* p, const IntegrateOptions& options,
              Observer& observe)
      : stepper_(stepper), y_(y), p_(p), options_(options), observe_(observe),
        n_(stepper.state_size()), next_(n_), stops_(stop_times(options)),
        every_step_(options.output_times.empty()),
        rhs_before_(stepper.rhs_evaluations()) {}

  IntegrateResult run() {
    stepper_.forget_first_slope();
    observe_(options_.t0, static_cast<const T*>(y_));
    return options_.step > 0.0 ? run_fixed() : run_adaptive();
  }

 private:
  IntegrateResult run_fixed() {
    // Small static models step in local arrays, which the compiler keeps in registers;
    // y is written back at the end (and is current whenever the observer sees it).
    constexpr std::size_t kStatic = static_state_size<typename Stepper::model_type>;
    if constexpr (kStatic > 0 && kStatic <= 16) {
      std::array<T, kStatic> state, next;
      std::copy(y_, y_ + kStatic, state.begin());
      IntegrateResult result = run_fixed(state.data(), next.data());
      std::copy(state.begin(), state.end(), y_);
      return result;
    } else {
      return run_fixed(y_, next_.data());
    }
  }

  IntegrateResult run_fixed(T* y, T* next) {
    double t_start = options_.t0;
    std::size_t steps = 0;
    for (double stop : stops_) {
      // Even steps no longer than options.step that end exactly on `stop`.
      const double span = stop - t_start;
      const std::size_t count = even_step_count(span, options_.step, options_.max_steps - steps);
      if (count == 0)
        return finish(IntegrateStatus::max_steps_reached, t_start, steps,
                      "the fixed step needs more than max_steps steps");
      const double h = span / double(count);
      for (std::size_t k = 0; k < count; ++k) {
        const double t = t_start + double(k) * h;
        stepper_.step(t, h, y, p_, next);
        const double t_new = k + 1 == count ? stop : t_start + double(k + 1) * h;
        if (!accept(t, h, t_new, steps, y, next)) return non_finite(t, steps);
      }
      t_start = stop;
      if (!every_step_) observe_(stop, static_cast<const T*>(y));
    }
    return finish(IntegrateStatus::success, t_start, steps, "");
  }

  IntegrateResult run_adaptive() {
    const ButcherTableau& tableau = stepper_.tableau();
    PIController controller(std::min(tableau.order, tableau.embedded_order) + 1);
    std::vector<T> error(n_);
    T* const next = next_.data();
    double t = options_.t0;
    std::size_t steps = 0;
    double h = options_.initial_step;
    if (h == 0.0) {
      std::vector<T> y1(n_), f1(n_);
      h = initial_step(stepper_, t, options_.t1 - t, y_, p_, options_.rtol, options_.atol, y1, f1);
    }
    h = std::min(h, options_.max_step);
    for (double stop : stops_) {
      while (t < stop) {
        // Rejected attempts count too, so that a run can never loop for ever.
        if (steps + rejected_steps_ >= options_.max_steps)
          return finish(IntegrateStatus::max_steps_reached, t, steps,
                        "max_steps reached (accepted and rejected steps)");
        const double min_step =
            std::max(options_.min_step, 16.0 * 2.2e-16 * std::max(1.0, std::abs(t)));
        if (!(h >= min_step)) {  // also catches a NaN step size
          if (failed_component_ != kNone) return non_finite(t, steps);
          return finish(IntegrateStatus::step_size_too_small, t, steps,
                        "step size " + std::to_string(h) + " fell below the minimum");
        }
        // Land exactly on the stop; stretch by up to 1% rather than leave a sliver.
        const bool lands = t + 1.01 * h >= stop;
        const double h_try = lands ? stop - t : h;
        stepper_.step(t, h_try, y_, p_, next, error.data());
        const double norm = error_norm(error.data(), y_, next, n_, options_.rtol, options_.atol);
        // A non-finite attempt is rejected like any other; if the step size then
        // collapses, the failure is reported as the non-finite value it was.
        const std::size_t bad = first_non_finite(next, n_);
        failed_component_ = bad < n_ ? bad : kNone;
        const double factor = controller.factor(norm);
        if (norm <= 1.0) {
          if (!accept(t, h_try, lands ? stop : t + h_try, steps, y_, next))
            return non_finite(t, steps);
          t = lands ? stop : t + h_try;
          // A step shortened to land keeps the earlier proposal if that was longer.
          h = lands ? std::max(h, h_try * factor) : h_try * factor;
        } else {
          stepper_.reject();
          ++rejected_steps_;
          h = h_try * factor;
        }
        h = std::min(h, options_.max_step);
      }
      if (!every_step_) observe_(stop, static_cast<const T*>(y_));
    }
    return finish(IntegrateStatus::success, t, steps, "");
  }

  // Moves the step from t to t_new (in next) into y; false if it is not finite.
  bool accept(double t, double h, double t_new, std::size_t& steps, T* y, const T* next) {
    const std::size_t n = stepper_.state_size();  // a constant for static models
    const std::size_t component = first_non_finite(next, n);
    if (component < n) [[unlikely]] {
      failed_component_ = component;
      return false;
    }
    if (options_.record_steps) {
      step_times_.push_back(t);
      step_sizes_.push_back(h);
    }
    for (std::size_t k = 0; k < n; ++k) y[k] = next[k];
    stepper_.accept();
    ++steps;
    if (every_step_) observe_(t_new, static_cast<const T*>(y));
    return true;
  }

  IntegrateResult non_finite(double t, std::size_t steps) {
    IntegrateResult result =
        finish(IntegrateStatus::non_finite_state, t, steps,
               "non-finite value in state component " + std::to_string(failed_component_));
    result.failed_step = steps;
    result.failed_component = failed_component_;
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
    result.step_times = std::move(step_times_);
    result.step_sizes = std::move(step_sizes_);
    if (status != IntegrateStatus::success) {
      std::ostringstream message;
      message << what << " at step " << steps << ", t = " << t;
      result.message = message.str();
    }
    return result;
  }

  Stepper& stepper_;
  T* const y_;
  const T* const p_;
  const IntegrateOptions& options_;
  Observer& observe_;
  const std::size_t n_;
  std::vector<T> next_;
  const std::vector<double> stops_;
  const bool every_step_;
  const std::size_t rhs_before_;
  static constexpr std::size_t kNone = std::size_t(-1);
  std::size_t rejected_steps_ = 0, failed_component_ = kNone;
  std::vector<double> step_times_, step_sizes_;
};

}  // namespace detail

// Integrates y from options.t0 to options.t1 in place (y holds y(t0) on entry and the
// state reached on return). observe(t, y) is called at t0, then at every output time,
// or after every accepted step when there are none. Nothing aborts: failures (invalid
// options, too many steps, step-size underflow, NaN/Inf) come back in the result.
template <class Stepper, class T, class Observer>
IntegrateResult integrate(Stepper& stepper, T* y, const T* p, const IntegrateOptions& options,
                          Observer&& observe) {
  if (auto why = options.invalid_reason(stepper.tableau().adaptive())) {
    IntegrateResult result;
    result.status = IntegrateStatus::invalid_options;
    result.t = options.t0;
    result.message = *why;
    return result;
  }
  return detail::Integration<Stepper, T, std::remove_reference_t<Observer>>(stepper, y, p,
                                                                            options, observe)
      .run();
}

template <class Stepper, class T>
IntegrateResult integrate(Stepper& stepper, T* y, const T* p, const IntegrateOptions& options) {
  return integrate(stepper, y, p, options, [](double, const T*) {});
}

}  // namespace backsweep
