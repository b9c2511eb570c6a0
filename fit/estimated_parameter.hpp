#pragma once
// A parameter the optimiser moves, and the scale it moves it in.
#include <cmath>
#include <cstddef>
#include <numbers>

namespace backsweep {

struct EstimatedParameter {
  std::size_t index = 0;  // in the model's parameter vector
  bool log10 = false;     // the optimiser works in log10 of the value
  double to_value(double scaled) const { return log10 ? std::pow(10.0, scaled) : scaled; }
  double to_scaled(double value) const { return log10 ? std::log10(value) : value; }
  // d value / d scaled
  double slope(double scaled) const { return log10 ? to_value(scaled) * std::numbers::ln10 : 1.0; }
};

}  // namespace backsweep
