#pragma once
// Options and outcome of an integration (the `integrate` loop in integrate.hpp).
#include <atomic>
#include <cmath>
#include <cstddef>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "platform/interrupt.hpp"

namespace backsweep {

class Context;     // context.hpp
class TimeEvents;  // time_events.hpp

// Where a run is, for a progress display on another thread: the solvers store (relaxed,
// at the cost of a store per step) the time each forward step reaches and each adjoint
// step goes back to. NaN until that sweep starts. A run with a progress stops there when
// asked to (platform/interrupt.hpp).
struct RunProgress {
  std::atomic<double> forward{NAN}, backward{NAN};
  std::atomic<std::size_t> pass{0}, passes{1};  // forward solves done and to do (the tangent's lanes)

  void reached_forward(double t) {
    forward.store(t, std::memory_order_relaxed);
    stop_if_interrupted();
  }
  void reached_backward(double t) {
    backward.store(t, std::memory_order_relaxed);
    stop_if_interrupted();
  }
};

struct IntegrateOptions {
  double t0 = 0.0, t1 = 1.0;
  // Times in [t0, t1], ascending, that the step sequence lands on exactly; the observer
  // is called there. Empty: the observer sees every accepted step.
  std::vector<double> output_times;
  // Jumps of the state at given times (steps land on them; applied by the steppers).
  std::shared_ptr<const TimeEvents> events;
  // > 0: fixed steps of at most this size (shortened evenly to land on output times).
  // 0: adaptive steps controlled by rtol/atol (the method needs an embedded error estimate).
  double step = 0.0;
  double rtol = 1e-6, atol = 1e-9;
  double initial_step = 0.0;  // adaptive only; 0 picks one (Hairer-Wanner's heuristic)
  double max_step = std::numeric_limits<double>::infinity();
  double min_step = 0.0;  // 0: a few ulps of t
  std::size_t max_steps = 1'000'000;
  RunProgress* progress = nullptr;  // where the steps report the time reached, if anywhere
  Context* context = nullptr;       // whose memory the run's stores draw on; null: default_context()

  // Why the options cannot be used, or nothing when they can.
  std::optional<std::string> invalid_reason(bool method_is_adaptive) const;
};

enum class IntegrateStatus {
  success,
  invalid_options,
  max_steps_reached,
  step_size_too_small,
  non_finite_state,
  unstable,  // an explicit method's fixed step beyond its stability limit (adjoint/stiffness.hpp)
};

const char* to_string(IntegrateStatus status);

struct IntegrateResult {
  IntegrateStatus status = IntegrateStatus::success;
  std::string message;  // empty on success; else what failed, where and when
  double t = 0.0;       // time reached
  std::size_t steps = 0, rejected_steps = 0, rhs_evaluations = 0;
  // For non_finite_state: the first offending step (its result is not finite), the
  // time that result is at, and the state component.
  std::size_t failed_step = 0, failed_component = 0;
  double failed_time = 0.0;
  bool derivative_only = false;  // a run on Dual numbers: the state was finite, a derivative of it was not

  bool ok() const { return status == IntegrateStatus::success; }
};

}  // namespace backsweep
