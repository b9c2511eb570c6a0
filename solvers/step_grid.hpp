#pragma once
// The step grid, one piece of arithmetic for every driver (integrate, the adjoint, the
// tangent, Lyapunov exponents): which (t_n, h_n, t_{n+1}) a solve takes.
//   - Fixed steps: between consecutive stops (the output times, then t1), even steps no
//     longer than options.step, t = t_start + k h, the last landing exactly on the stop.
//   - Adaptive steps are chosen by integrate's controller and recorded as a StepSequence.
//   - A StepSequence replays a grid exactly (the backward sweep, finite differences).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

#include "models/host_device.hpp"
#include "solvers/integrate_options.hpp"
#include "solvers/stepper.hpp"

namespace backsweep {

// The times every step sequence must land on: output times after t0, then t1.
inline std::vector<double> stop_times(const IntegrateOptions& options) {
  std::vector<double> stops;
  for (double t : options.output_times)
    if (t > options.t0) stops.push_back(t);
  if (stops.empty() || stops.back() < options.t1) stops.push_back(options.t1);
  return stops;
}

// The number of even fixed steps, no longer than `step`, that cover `span` and end
// exactly on its end; 0 when that needs more than `budget` steps (checked before any
// cast, so a tiny step cannot overflow).
inline std::size_t even_step_count(double span, double step, std::size_t budget) {
  const double wanted = std::max(1.0, std::ceil(span / step * (1.0 - 1e-12)));
  return wanted <= double(budget) ? static_cast<std::size_t>(wanted) : 0;
}

// Step k of uniform steps of size h from t_start.
inline StepInterval uniform_step(double t_start, double h, std::size_t k) {
  return {t_start + double(k) * h, h, t_start + double(k + 1) * h};
}

// The fixed-step grid of some options, walked step by step:
//   FixedGrid grid(options);
//   for (StepInterval step; grid.next(step);) { ... grid.at_stop() ... }
//   if (grid.too_many_steps()) ...   // more than options.max_steps steps in all
class FixedGrid {
 public:
  explicit FixedGrid(const IntegrateOptions& options)
      : stops_(stop_times(options)), step_(options.step), budget_(options.max_steps),
        t_start_(options.t0) {}

  // The next step into `step`; false when the grid is done (or too long).
  BACKSWEEP_INLINE bool next(StepInterval& step) {
    if (k_ == count_ && !next_segment()) return false;
    step = ++k_ < count_ ? uniform_step(t_start_, h_, k_ - 1)
                         : StepInterval{t_start_ + double(k_ - 1) * h_, h_, stops_[stop_]};
    return true;
  }
  // How many steps the whole grid takes (0 when more than options.max_steps).
  std::size_t size() const {
    double t = t_start_;
    std::size_t total = 0;
    for (double stop : stops_) {
      const std::size_t count = even_step_count(stop - t, step_, budget_ - total);
      if (count == 0) return 0;
      total += count;
      t = stop;
    }
    return total;
  }
  // Whether the step `next` gave last ends on a stop (an output time or t1).
  bool at_stop() const { return k_ == count_; }
  bool too_many_steps() const { return too_many_; }
  // Where the current segment (between two stops) starts.
  double segment_start() const { return t_start_; }

 private:
  bool next_segment() {
    if (count_ > 0) t_start_ = stops_[stop_++];
    if (stop_ == stops_.size()) return false;
    const double span = stops_[stop_] - t_start_;
    count_ = even_step_count(span, step_, budget_ - taken_);
    if (count_ == 0) {
      too_many_ = true;
      return false;
    }
    taken_ += count_;
    h_ = span / double(count_);
    k_ = 0;
    return true;
  }

  std::vector<double> stops_;
  double step_;
  std::size_t budget_, taken_ = 0;
  std::size_t stop_ = 0, count_ = 0, k_ = 0;
  double t_start_, h_ = 0.0;
  bool too_many_ = false;
};

// The accepted steps of a solve, n = 0 .. N-1: what the backward sweep replays. Step
// sizes are constants of the adjoint.
class StepSequence {
 public:
  StepSequence() = default;
  explicit StepSequence(double t0) : t_{t0} {}

  void reserve(std::size_t steps) {
    t_.reserve(steps + 1);
    h_.reserve(steps);
  }
  void push_back(const StepInterval& step) {
    h_.push_back(step.h);
    t_.push_back(step.t_next);
  }
  std::size_t size() const { return h_.size(); }
  StepInterval operator[](std::size_t n) const { return {t_[n], h_[n], t_[n + 1]}; }
  double t_start() const { return t_.front(); }
  double t_end() const { return t_.back(); }
  // The index of the state at exactly `time` (size() for t_end), or npos.
  std::size_t index_of(double time) const {
    const auto it = std::lower_bound(t_.begin(), t_.end(), time);
    return it != t_.end() && *it == time ? std::size_t(it - t_.begin()) : npos;
  }
  static constexpr std::size_t npos = std::size_t(-1);

 private:
  std::vector<double> t_{0.0}, h_;  // t_: N + 1 state times
};

// The fixed-step grid of the options as a sequence; false when it needs more than
// max_steps steps.
inline bool fixed_step_sequence(const IntegrateOptions& options, StepSequence& sequence) {
  sequence = StepSequence(options.t0);
  FixedGrid grid(options);
  for (StepInterval step; grid.next(step);) sequence.push_back(step);
  return !grid.too_many_steps();
}

}  // namespace backsweep
