#include "solvers/integrate_options.hpp"

#include <algorithm>
#include <cmath>

namespace backsweep {

std::optional<std::string> IntegrateOptions::invalid_reason(bool method_is_adaptive) const {
  auto finite = [](double x) { return std::isfinite(x); };
  if (!finite(t0) || !finite(t1)) return "the time span must be finite";
  if (!(t1 > t0)) return "time.end must be greater than time.start";
  if (!(step >= 0.0) || !finite(step)) return "the step size must be a finite number >= 0";
  if (step == 0.0) {
    if (!method_is_adaptive)
      return "this method has no error estimate: give a fixed step size";
    if (!(rtol > 0.0) || !finite(rtol)) return "rtol must be a finite number > 0";
    if (!(atol >= 0.0) || !finite(atol)) return "atol must be a finite number >= 0";
  }
  if (!(initial_step >= 0.0) || !(min_step >= 0.0) || !(max_step > 0.0))
    return "initial_step and min_step must be >= 0 and max_step > 0";
  if (max_steps == 0) return "max_steps must be at least 1";
  for (std::size_t i = 0; i < output_times.size(); ++i) {
    const double t = output_times[i];
    if (!finite(t) || t < t0 || t > t1) return "output times must lie in [start, end]";
    if (i > 0 && !(t > output_times[i - 1]))
      return "output times must be strictly increasing";
  }
  return std::nullopt;
}

const char* to_string(IntegrateStatus status) {
  switch (status) {
    case IntegrateStatus::success: return "success";
    case IntegrateStatus::invalid_options: return "invalid_options";
    case IntegrateStatus::max_steps_reached: return "max_steps_reached";
    case IntegrateStatus::step_size_too_small: return "step_size_too_small";
    case IntegrateStatus::non_finite_state: return "non_finite_state";
    case IntegrateStatus::unstable: return "unstable";
  }
  return "unknown";
}

}  // namespace backsweep
