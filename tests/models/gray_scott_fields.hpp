#pragma once
// The initial fields of the Gray–Scott tests (docs/config.md's "Fields" problem): on a 2-D
// grid, v = sin(4 pi x)^2 sin(4 pi y)^2 / 4 on [1, 1.5]^2, else 0; u = 1 - 2 v.
#include <cmath>
#include <numbers>
#include <vector>

#include "models/grid.hpp"

namespace backsweep::testing {

inline std::vector<double> gray_scott_initial_fields(const Grid& grid) {
  std::vector<double> y(2 * grid.points());
  for (std::size_t point = 0; point < grid.points(); ++point) {
    const auto at = grid.position(point);
    const double yy = grid.coordinate(0, at[0]), x = grid.coordinate(1, at[1]);
    const bool inside = x >= 1 && x <= 1.5 && yy >= 1 && yy <= 1.5;
    const double s = std::sin(4 * std::numbers::pi * x) * std::sin(4 * std::numbers::pi * yy);
    y[grid.points() + point] = inside ? s * s / 4 : 0.0;
    y[point] = 1 - 2 * y[grid.points() + point];
  }
  return y;
}

}  // namespace backsweep::testing
