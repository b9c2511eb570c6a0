#include "fit/field_regularization.hpp"

#include <array>
#include <cmath>

namespace backsweep {

double regularization(const Grid& grid, const FieldRegularization& weights, const double* k, double* gradient) {
  double volume = 1.0;
  for (std::size_t a = 0; a < grid.axes(); ++a) volume *= grid.spacing(a);
  double value = 0.0;
  for (std::size_t point = 0; point < grid.points(); ++point) {
    if (weights.tikhonov > 0.0) {
      const double r = k[point] - (weights.reference.empty() ? 0.0 : weights.reference[point]);
      value += 0.5 * weights.tikhonov * volume * r * r;
      gradient[point] += weights.tikhonov * volume * r;
    }
    if (weights.h1 <= 0.0 && weights.tv <= 0.0) continue;
    // Forward differences to the neighbours above, per axis.
    const auto at = grid.position(point);
    std::array<double, Grid::kMaxAxes> d{};
    std::array<std::size_t, Grid::kMaxAxes> above{};
    double squares = 0.0;
    for (std::size_t a = 0; a < grid.axes(); ++a) {
      const Neighbour n = grid.above(point, at[a], a);
      above[a] = n.index;
      d[a] = n.wall ? 0.0 : (k[n.index] - k[point]) / grid.spacing(a);
      squares += d[a] * d[a];
    }
    value += 0.5 * weights.h1 * volume * squares;
    double tv_slope = 0.0;  // d/d(d_a) of the TV term, per unit d_a
    if (weights.tv > 0.0) {
      const double s = std::sqrt(squares + weights.tv_epsilon * weights.tv_epsilon);
      value += weights.tv * volume * s;
      tv_slope = weights.tv * volume / s;
    }
    for (std::size_t a = 0; a < grid.axes(); ++a) {
      const double slope = (weights.h1 * volume + tv_slope) * d[a] / grid.spacing(a);
      gradient[above[a]] += slope;
      gradient[point] -= slope;
    }
  }
  return value;
}

}  // namespace backsweep
