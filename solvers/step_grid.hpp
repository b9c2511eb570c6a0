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
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "platform/host_device.hpp"
#include "solvers/integrate_options.hpp"
#include "solvers/stepper.hpp"
#include "solvers/time_events.hpp"

namespace backsweep {

// The times every step sequence must land on: output and event times after t0, then t1.
inline std::vector<double> stop_times(const IntegrateOptions& options) {
  std::vector<double> stops;
  for (double t : options.output_times)
    if (t > options.t0) stops.push_back(t);
  if (options.events) {
    for (double t : options.events->times())
      if (t > options.t0 && t <= options.t1) stops.push_back(t);
    std::sort(stops.begin(), stops.end());
    stops.erase(std::unique(stops.begin(), stops.end()), stops.end());
  }
  if (stops.empty() || stops.back() < options.t1) stops.push_back(options.t1);
  return stops;
}

// Why the fixed steps of `options` are refused before any is taken: more than max_steps.
inline std::string too_many_fixed_steps(const IntegrateOptions& options) {
  std::ostringstream message;
  message << "the fixed step " << options.step << " needs more than max_steps = " << options.max_steps
          << " steps from t = " << options.t0 << " to " << options.t1 << "; nothing was integrated";
  return message.str();
}

// The number of even fixed steps, no longer than `step`, that cover `span` and end
// exactly on its end; 0 when that needs more than `budget` steps (checked before any
// cast, so a tiny step cannot overflow).
BACKSWEEP_HOST_DEVICE inline std::size_t even_step_count(double span, double step, std::size_t budget) {
  const double wanted = std::max(1.0, std::ceil(span / step * (1.0 - 1e-12)));
  return wanted <= double(budget) ? static_cast<std::size_t>(wanted) : 0;
}

// Step k of uniform steps of size h from t_start.
BACKSWEEP_HOST_DEVICE inline StepInterval uniform_step(double t_start, double h, std::size_t k) {
  return {t_start + double(k) * h, h, t_start + double(k + 1) * h};
}

// Step k of the `count` even steps of size h from t_start to stop: the last lands on it.
BACKSWEEP_HOST_DEVICE inline StepInterval segment_step(double t_start, double h, std::size_t k, std::size_t count,
                                                       double stop) {
  return k + 1 < count ? uniform_step(t_start, h, k) : StepInterval{t_start + double(k) * h, h, stop};
}

// The fixed-step grid of some options: its segments (between two stops) are worked out
// once, then steps are had in order or by index, with the same arithmetic.
//   FixedGrid grid(options);
//   for (StepInterval step; grid.next(step);) { ... grid.at_stop() ... }
//   if (grid.too_many_steps()) ...   // more than options.max_steps steps in all
//   grid.at(n)                        // step n
class FixedGrid {
 public:
  explicit FixedGrid(const IntegrateOptions& options) : t0_(options.t0) {
    double t_start = options.t0;
    std::size_t first = 0;
    for (double stop : stop_times(options)) {
      const std::size_t count = even_step_count(stop - t_start, options.step, options.max_steps - first);
      if (count == 0) {
        too_many_ = true;
        failed_at_ = t_start;
        break;
      }
      segments_.push_back({first, count, t_start, (stop - t_start) / double(count), stop});
      first += count;
      t_start = stop;
    }
  }

  // How many steps the grid takes (0 when more than options.max_steps).
  std::size_t size() const {
    return too_many_ || segments_.empty() ? 0 : segments_.back().first + segments_.back().count;
  }
  bool too_many_steps() const { return too_many_; }
  // Where the segment that needs too many steps starts.
  double failed_at() const { return failed_at_; }

  // Step n (< size()).
  StepInterval at(std::size_t n) const {
    std::size_t i = segment_;
    if (!(n >= segments_[i].first && n < segments_[i].first + segments_[i].count)) {
      i = segment_of(n);
      segment_ = i;  // steps are asked for in runs: the next is likely in the same segment
    }
    const Segment& s = segments_[i];
    return segment_step(s.t_start, s.h, n - s.first, s.count, s.stop);
  }
  // Step n as `at` gives it, without the hint `at` keeps (for a grid several threads read).
  StepInterval step(std::size_t n) const {
    const Segment& s = segments_[segment_of(n)];
    return segment_step(s.t_start, s.h, n - s.first, s.count, s.stop);
  }
  double largest_step() const {
    double h = 0.0;
    for (const Segment& s : segments_) h = std::max(h, s.h);
    return h;
  }
  double t_start() const { return t0_; }
  double t_end() const { return segments_.empty() ? t0_ : segments_.back().stop; }
  // The index of the state at exactly `time` (size() at the last stop), or npos.
  std::size_t index_of(double time) const {
    if (time == t0_) return 0;
    const auto s = std::lower_bound(segments_.begin(), segments_.end(), time,
                                    [](const Segment& segment, double t) { return segment.stop < t; });
    if (s == segments_.end() || !(time > s->t_start)) return npos;
    if (time == s->stop) return s->first + s->count;
    const double k = std::floor((time - s->t_start) / s->h);  // a state's time is t_start + k h
    for (double j = std::max(1.0, k - 1.0); j <= k + 1.0 && j < double(s->count); ++j)
      if (uniform_step(s->t_start, s->h, std::size_t(j)).t == time) return s->first + std::size_t(j);
    return npos;
  }
  static constexpr std::size_t npos = std::size_t(-1);

  // The next step in order into `step`; false when the grid is done (or too long).
  BACKSWEEP_INLINE bool next(StepInterval& step) {
    if (walked_ == size()) return false;
    step = at(walked_++);
    return true;
  }
  // Whether the step `next` gave last ends on a stop (an output time or t1).
  bool at_stop() const {
    const Segment& s = segments_[segment_];
    return walked_ == s.first + s.count;
  }

 private:
  struct Segment {
    std::size_t first, count;  // its first step's index, and how many
    double t_start, h, stop;
  };
  std::size_t segment_of(std::size_t n) const {
    return std::size_t(std::upper_bound(segments_.begin(), segments_.end(), n,
                                        [](std::size_t m, const Segment& s) { return m < s.first; }) -
                       segments_.begin()) - 1;
  }

  double t0_;
  std::vector<Segment> segments_;
  mutable std::size_t segment_ = 0;
  std::size_t walked_ = 0;
  bool too_many_ = false;
  double failed_at_ = 0.0;
};

// The accepted steps of a solve, n = 0 .. N-1: what the backward sweep replays. Step
// sizes are constants of the adjoint. Steps pushed one by one (adaptive ones), or a fixed
// grid kept as its segments: a long fixed-step run keeps nothing per step.
class StepSequence {
 public:
  StepSequence() = default;
  explicit StepSequence(double t0) : t_{t0} {}
  explicit StepSequence(FixedGrid grid) : grid_(std::move(grid)) {}

  void reserve(std::size_t steps) {
    t_.reserve(steps + 1);
    h_.reserve(steps);
  }
  void push_back(const StepInterval& step) {  // not on a fixed grid's sequence
    h_.push_back(step.h);
    t_.push_back(step.t_next);
  }
  std::size_t size() const { return grid_ ? grid_->size() : h_.size(); }
  StepInterval operator[](std::size_t n) const { return grid_ ? grid_->step(n) : StepInterval{t_[n], h_[n], t_[n + 1]}; }
  double t_start() const { return grid_ ? grid_->t_start() : t_.front(); }
  double t_end() const { return grid_ ? grid_->t_end() : t_.back(); }
  // The index of the state at exactly `time` (size() for t_end), or npos.
  std::size_t index_of(double time) const {
    if (grid_) return grid_->index_of(time);
    const auto it = std::lower_bound(t_.begin(), t_.end(), time);
    return it != t_.end() && *it == time ? std::size_t(it - t_.begin()) : npos;
  }
  static constexpr std::size_t npos = std::size_t(-1);

 private:
  std::optional<FixedGrid> grid_;
  std::vector<double> t_{0.0}, h_;  // t_: N + 1 state times
};

// The fixed-step grid of the options as a sequence; false when it needs more than
// max_steps steps.
inline bool fixed_step_sequence(const IntegrateOptions& options, StepSequence& sequence) {
  FixedGrid grid(options);
  const bool fits = !grid.too_many_steps();
  sequence = StepSequence(std::move(grid));
  return fits;
}

}  // namespace backsweep
