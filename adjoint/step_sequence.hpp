#pragma once
// The accepted step sequence of a solve, (t_n, h_n) for n = 0 .. N-1: what the backward
// sweep replays. Step sizes are constants of the adjoint.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "solvers/integrate.hpp"

namespace backsweep {

struct StepSequence {
  std::vector<double> t, h;
  double t_end = 0.0;
  std::size_t size() const { return t.size(); }
  // The step index whose start time is exactly `time` (size() for t_end), or npos.
  std::size_t index_of(double time) const {
    if (time == t_end) return size();
    const auto it = std::lower_bound(t.begin(), t.end(), time);
    return it != t.end() && *it == time ? std::size_t(it - t.begin()) : npos;
  }
  static constexpr std::size_t npos = std::size_t(-1);
};

// Fixed steps: computed from the options alone, with integrate's arithmetic (the same
// even_step_count and t_start + k h). Adaptive
// steps: found by one forward solve (its cost is in result.rhs_evaluations).
template <class Stepper>
IntegrateResult find_step_sequence(Stepper& stepper, const double* y0, const double* p,
                                   IntegrateOptions options, StepSequence& sequence) {
  options.record_steps = true;
  std::vector<double> y(y0, y0 + stepper.state_size());
  IntegrateResult result;
  if (options.step > 0.0) {
    if (auto why = options.invalid_reason(stepper.tableau().adaptive())) {
      result.status = IntegrateStatus::invalid_options;
      result.message = *why;
      return result;
    }
    double t_start = options.t0;
    for (double stop : detail::stop_times(options)) {
      const double span = stop - t_start;
      const std::size_t count =
          detail::even_step_count(span, options.step, options.max_steps - result.step_times.size());
      if (count == 0) {
        result.status = IntegrateStatus::max_steps_reached;
        result.message = "the fixed step needs more than max_steps steps";
        break;
      }
      const double h = span / double(count);
      for (std::size_t k = 0; k < count; ++k) {
        result.step_times.push_back(t_start + double(k) * h);
        result.step_sizes.push_back(h);
      }
      t_start = stop;
    }
    result.steps = result.step_times.size();
    result.t = options.t1;
  } else {
    result = integrate(stepper, y.data(), p, options);
  }
  sequence.t = std::move(result.step_times);
  sequence.h = std::move(result.step_sizes);
  sequence.t_end = options.t1;
  return result;
}

}  // namespace backsweep
