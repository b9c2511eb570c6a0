#pragma once
// A parameter the optimiser moves, and the scale it moves it in.
#include <cmath>
#include <cstddef>
#include <numbers>
#include <string_view>

namespace backsweep {

// The optimiser works in the value (lin), its natural logarithm (log, PEtab's) or log10.
enum class ParameterScale { lin, log, log10 };

constexpr std::string_view to_string(ParameterScale scale) {
  return scale == ParameterScale::lin ? "lin" : scale == ParameterScale::log ? "log" : "log10";
}

struct EstimatedParameter {
  std::size_t index = 0;  // in the model's parameter vector
  ParameterScale scale = ParameterScale::lin;
  double to_value(double scaled) const {
    return scale == ParameterScale::log10 ? std::pow(10.0, scaled)
           : scale == ParameterScale::log ? std::exp(scaled)
                                          : scaled;
  }
  double to_scaled(double value) const {
    return scale == ParameterScale::log10 ? std::log10(value) : scale == ParameterScale::log ? std::log(value) : value;
  }
  // d value / d scaled
  double slope(double scaled) const {
    return scale == ParameterScale::log10 ? to_value(scaled) * std::numbers::ln10
           : scale == ParameterScale::log ? to_value(scaled)
                                          : 1.0;
  }
};

}  // namespace backsweep
