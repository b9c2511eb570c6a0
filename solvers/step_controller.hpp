#pragma once
// Step-size control for methods with an embedded error estimate: a PI controller
// (Gustafsson; Hairer-Wanner II, IV.2) with the usual safety factor and limits on how fast
// the step may change. The error norm it reads is error_norm (vector_operations.hpp).
#include <algorithm>
#include <cmath>

#include "platform/host_device.hpp"

namespace backsweep {

class PIController {
 public:
  // `order` is min(order, embedded order) + 1: the exponent of the local error.
  BACKSWEEP_HOST_DEVICE explicit PIController(int order)
      : alpha_(0.7 / order), beta_(0.4 / order), reject_exponent_(1.0 / order) {}

  // The factor for the next step after a step with error norm `norm` (accepted when
  // norm <= 1).
  BACKSWEEP_HOST_DEVICE double factor(double norm) {
    if (norm <= 1.0) {
      const double n = std::max(norm, 1e-10);
      double f = kSafety * std::pow(n, -alpha_) * std::pow(previous_norm_, beta_);
      // double{...}: a copy, since device code cannot bind a reference to a host constant.
      f = std::clamp(f, double{kMinFactor}, last_rejected_ ? 1.0 : kMaxFactor);
      previous_norm_ = std::max(norm, 1e-4);
      last_rejected_ = false;
      return f;
    }
    last_rejected_ = true;
    if (!std::isfinite(norm)) return kMinFactor;
    return std::clamp(kSafety * std::pow(norm, -reject_exponent_), double{kMinFactor}, 1.0);
  }

 private:
  static constexpr double kSafety = 0.9, kMinFactor = 0.2, kMaxFactor = 10.0;
  double alpha_, beta_, reject_exponent_;
  double previous_norm_ = 1.0;
  bool last_rejected_ = false;
};

}  // namespace backsweep
