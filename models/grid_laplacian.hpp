#pragma once
// for_each_laplacian(): the Laplacians of several fields at every grid point, row by row
// (a row runs along x), for hand-written stencil kernels. Each row looks its neighbour
// rows up once; its inner loop reads them at fixed offsets with no branch, no division
// and no call, so it streams at memory bandwidth. A Dirichlet wall is a neighbour of
// weight 0, which keeps the loop branch-free.
//
// On these grids the Laplacian is symmetric (every neighbour weighs 1 / h^2 both ways,
// a Neumann mirror included), so a kernel's transpose is the same loop on the adjoint.
#include <array>
#include <cstddef>

#include "models/grid.hpp"

namespace backsweep {

// f(point, laplacians) for every point in order, laplacians[k] = lap(fields[k]) there.
template <std::size_t K, class T, class F>
void for_each_laplacian(const Grid& grid, const std::array<const T*, K>& fields, F&& f) {
  const std::size_t x = grid.axes() - 1, nx = grid.size(x);
  const double cx = 1.0 / (grid.spacing(x) * grid.spacing(x));
  double centre = -2.0 * cx;
  for (std::size_t a = 0; a < x; ++a) centre -= 2.0 / (grid.spacing(a) * grid.spacing(a));
  // Along x, at the two ends: the neighbour's offset from the point and its weight.
  const auto end = [&](Neighbour n, std::size_t point) {
    return std::pair<std::ptrdiff_t, double>{std::ptrdiff_t(n.index) - std::ptrdiff_t(point), n.wall ? 0.0 : cx};
  };
  const auto [first_offset, first_weight] = end(grid.below(0, 0, x), 0);
  const auto [last_offset, last_weight] = end(grid.above(nx - 1, nx - 1, x), nx - 1);

  for (std::size_t row = 0; row < grid.points(); row += nx) {
    // Up to two neighbour rows per other axis, as offsets from this row with weights.
    std::array<std::ptrdiff_t, 2 * (Grid::kMaxAxes - 1)> offset{};
    std::array<double, 2 * (Grid::kMaxAxes - 1)> weight{};
    std::size_t rows = 0;
    const auto at = grid.position(row);
    for (std::size_t a = 0; a < x; ++a) {
      const double c = 1.0 / (grid.spacing(a) * grid.spacing(a));
      for (const Neighbour n : {grid.below(row, at[a], a), grid.above(row, at[a], a)}) {
        offset[rows] = std::ptrdiff_t(n.index) - std::ptrdiff_t(row);
        weight[rows++] = n.wall ? 0.0 : c;
      }
    }
    const auto laplacians = [&](std::size_t i, std::ptrdiff_t left, double left_weight,
                                std::ptrdiff_t right, double right_weight) {
      const std::size_t point = row + i;
      std::array<T, K> lap;
      for (std::size_t k = 0; k < K; ++k) {
        const T* u = fields[k] + point;
        T sum = u[0] * T(centre) + u[left] * T(left_weight) + u[right] * T(right_weight);
        for (std::size_t r = 0; r < rows; ++r) sum += u[offset[r]] * T(weight[r]);
        lap[k] = sum;
      }
      f(point, lap);
    };
    if (nx == 1) {
      laplacians(0, first_offset, first_weight, last_offset, last_weight);
      continue;
    }
    laplacians(0, first_offset, first_weight, 1, cx);
    for (std::size_t i = 1; i + 1 < nx; ++i) laplacians(i, -1, cx, 1, cx);
    laplacians(nx - 1, -1, cx, last_offset, last_weight);
  }
}

}  // namespace backsweep
