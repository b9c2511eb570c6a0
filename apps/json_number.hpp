#pragma once
#include <cmath>

#include <nlohmann/json.hpp>

namespace backsweep::apps {

// JSON has no Inf or NaN: such a number is written as null.
inline nlohmann::json finite_or_null(double x) {
  return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr);
}

}  // namespace backsweep::apps
