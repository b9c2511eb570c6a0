#pragma once
// for_each_laplacian_block(): the Laplacians of several fields over the whole grid, a
// block of points at a time, for hand-written stencil kernels. Blocks run along x within
// a row; each row looks its neighbour rows up once, and the block's Laplacians go to a
// small buffer on the stack (in L1) by a branch-free loop that vectorises. The kernel then
// runs its own plain loop over the block, which vectorises too (reductions included,
// with `#pragma omp simd reduction`). A Dirichlet wall is a neighbour of weight 0.
//
// On these grids the Laplacian is symmetric (every neighbour weighs 1 / h^2 both ways,
// a Neumann mirror included), so a kernel's transpose is the same loop on the adjoint.
#include <array>
#include <cstddef>
#include <utility>

#include "models/grid.hpp"

namespace backsweep {

inline constexpr std::size_t kLaplacianBlock = 256;
// (Loops over the R neighbour rows test r != R: R may be 0, and nvcc warns of r < 0.)

namespace detail {

// Rows with R neighbour rows each (2 per axis other than x): R is a constant, so the
// loops unroll and vectorise.
template <std::size_t R, std::size_t K, class T, class F>
void laplacian_rows(const Grid& grid, const std::array<const T*, K>& fields, F& f) {
  const std::size_t x = grid.axes() - 1, nx = grid.size(x);
  const double cx = 1.0 / (grid.spacing(x) * grid.spacing(x));
  double centre = -2.0 * cx;
  for (std::size_t a = 0; a < x; ++a) centre -= 2.0 / (grid.spacing(a) * grid.spacing(a));
  // Along x, at the two ends of a row: the neighbour's offset from the point and its weight.
  const auto end = [&](Neighbour n, std::size_t point) {
    return std::pair<std::ptrdiff_t, double>{std::ptrdiff_t(n.index) - std::ptrdiff_t(point), n.wall ? 0.0 : cx};
  };
  const auto [first_offset, first_weight] = end(grid.below(0, 0, x), 0);
  const auto [last_offset, last_weight] = end(grid.above(nx - 1, nx - 1, x), nx - 1);

  // The leading neighbour row one row further on (2-D: two rows ahead; 3-D: a plane and a
  // row): what that neighbour stream reads next. Among a kernel's many streams the
  // hardware's prefetchers miss it (measured: the Gray–Scott VJP at 1024^2, 20% faster).
  const std::size_t lead = R > 0 ? grid.stride(0) + nx : 0;
  T buffer[K][kLaplacianBlock];
  std::array<const T*, K> laplacians;
  for (std::size_t k = 0; k < K; ++k) laplacians[k] = buffer[k];
  for (std::size_t row = 0; row < grid.points(); row += nx) {
    // The neighbour rows, as offsets from this row, with their weights.
    std::array<std::ptrdiff_t, R + 1> offset{};
    std::array<double, R + 1> weight{};
    if constexpr (R > 0) {
      const auto at = grid.position(row);
      for (std::size_t a = 0; a < R / 2; ++a) {
        const double c = 1.0 / (grid.spacing(a) * grid.spacing(a));
        const Neighbour below = grid.below(row, at[a], a), above = grid.above(row, at[a], a);
        offset[2 * a] = std::ptrdiff_t(below.index) - std::ptrdiff_t(row);
        weight[2 * a] = below.wall ? 0.0 : c;
        offset[2 * a + 1] = std::ptrdiff_t(above.index) - std::ptrdiff_t(row);
        weight[2 * a + 1] = above.wall ? 0.0 : c;
      }
    }
    // The row's ends take their x neighbours from the walls.
    const auto at_end = [&](std::size_t i, std::ptrdiff_t left, double left_weight, std::ptrdiff_t right,
                            double right_weight, std::size_t k) {
      const T* u = fields[k] + row + i;
      T sum = u[0] * T(centre) + u[left] * T(left_weight) + u[right] * T(right_weight);
      for (std::size_t r = 0; r != R; ++r) sum += u[offset[r]] * T(weight[r]);
      return sum;
    };
    for (std::size_t first = 0; first < nx; first += kLaplacianBlock) {
      const std::size_t count = std::min(kLaplacianBlock, nx - first);
      if (lead > 0 && row + first + lead + count <= grid.points())
        for (std::size_t k = 0; k < K; ++k)
          for (std::size_t j = 0; j < count; j += 8) __builtin_prefetch(fields[k] + row + first + lead + j);
      // The interior of the block: i - 1 and i + 1 both in the row.
      const std::size_t begin = std::max<std::size_t>(first, 1), stop = std::min(first + count, nx - 1);
      for (std::size_t k = 0; k < K; ++k) {
        const T* const c = fields[k] + row;
        std::array<const T*, R + 1> neighbour{};
        for (std::size_t r = 0; r != R; ++r) neighbour[r] = c + offset[r];
        T* const out = buffer[k];  // out[j] is point row + first + j
        for (std::size_t i = begin; i < stop; ++i) {
          T sum = c[i] * T(centre) + (c[i - 1] + c[i + 1]) * T(cx);
          for (std::size_t r = 0; r != R; ++r) sum += neighbour[r][i] * T(weight[r]);
          out[i - first] = sum;
        }
        if (first == 0)
          out[0] = nx == 1 ? at_end(0, first_offset, first_weight, last_offset, last_weight, k)
                           : at_end(0, first_offset, first_weight, 1, cx, k);
        if (first + count == nx && nx > 1)
          out[nx - 1 - first] = at_end(nx - 1, -1, cx, last_offset, last_weight, k);
      }
      f(row + first, count, laplacians);
    }
  }
}

}  // namespace detail

// f(first, count, laplacians) for consecutive blocks of points covering the grid in order:
// laplacians[k][j] = lap(fields[k]) at point first + j, for j < count (<= kLaplacianBlock).
template <std::size_t K, class T, class F>
void for_each_laplacian_block(const Grid& grid, const std::array<const T*, K>& fields, F&& f) {
  switch (grid.axes()) {
    case 1: return detail::laplacian_rows<0>(grid, fields, f);
    case 2: return detail::laplacian_rows<2>(grid, fields, f);
    default: return detail::laplacian_rows<4>(grid, fields, f);
  }
}

}  // namespace backsweep
