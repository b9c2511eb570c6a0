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

// The planes (along the slowest axis) a kernel runs over: all of them, or one block's
// (models/grid_block.hpp), whose fields hold its own points only. `below` and `above` are
// each field's plane beyond the block (a ghost: the neighbouring block's edge), or null
// where that side is the grid's wall or the block wraps onto itself. A 1-D grid is one
// plane.
template <class T, std::size_t K>
struct PlaneRange {
  std::size_t first = 0, count = 0;
  std::array<const T*, K> below{}, above{};
};

// The points of one plane of `grid`.
inline std::size_t plane_points(const Grid& grid) { return grid.axes() > 1 ? grid.stride(0) : grid.points(); }

// Every plane of `grid`, no ghosts.
template <class T, std::size_t K>
PlaneRange<T, K> all_planes(const Grid& grid) {
  return {0, grid.points() / plane_points(grid), {}, {}};
}

namespace detail {

// Rows with R neighbour rows each (2 per axis other than x): R is a constant, so the
// loops unroll and vectorise.
template <std::size_t R, std::size_t K, class T, class F>
void laplacian_rows(const Grid& grid, const PlaneRange<T, K>& planes, const std::array<const T*, K>& fields,
                    F& f) {
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

  // Points are numbered within the block: global point = begin + local point.
  const std::size_t plane = plane_points(grid), begin = planes.first * plane, points = planes.count * plane;
  // The leading neighbour row one row further on (2-D: two rows ahead; 3-D: a plane and a
  // row): what that neighbour stream reads next. Among a kernel's many streams the
  // hardware's prefetchers miss it (measured: the Gray–Scott VJP at 1024^2, 20% faster).
  const std::size_t lead = R > 0 ? grid.stride(0) + nx : 0;
  T buffer[K][kLaplacianBlock];
  std::array<const T*, K> laplacians;
  for (std::size_t k = 0; k < K; ++k) laplacians[k] = buffer[k];
  for (std::size_t row = 0; row < points; row += nx) {
    // Each field's neighbour rows, with their weights: in the block, or a ghost plane.
    std::array<std::array<const T*, R + 1>, K> neighbours{};
    std::array<double, R + 1> weight{};
    if constexpr (R > 0) {
      const std::size_t global = begin + row;
      const auto at = grid.position(global);
      for (std::size_t a = 0; a < R / 2; ++a) {
        const double c = 1.0 / (grid.spacing(a) * grid.spacing(a));
        const Neighbour below = grid.below(global, at[a], a), above = grid.above(global, at[a], a);
        weight[2 * a] = below.wall ? 0.0 : c;
        weight[2 * a + 1] = above.wall ? 0.0 : c;
        for (std::size_t k = 0; k < K; ++k) {
          const bool ghost_below = a == 0 && at[0] == planes.first && planes.below[k];
          const bool ghost_above = a == 0 && at[0] + 1 == planes.first + planes.count && planes.above[k];
          neighbours[k][2 * a] = ghost_below ? planes.below[k] + global % plane : fields[k] + (below.index - begin);
          neighbours[k][2 * a + 1] = ghost_above ? planes.above[k] + global % plane : fields[k] + (above.index - begin);
        }
      }
    }
    // The row's ends take their x neighbours from the walls.
    const auto at_end = [&](std::size_t i, std::ptrdiff_t left, double left_weight, std::ptrdiff_t right,
                            double right_weight, std::size_t k) {
      const T* u = fields[k] + row + i;
      T sum = u[0] * T(centre) + u[left] * T(left_weight) + u[right] * T(right_weight);
      for (std::size_t r = 0; r != R; ++r) sum += neighbours[k][r][i] * T(weight[r]);
      return sum;
    };
    for (std::size_t first = 0; first < nx; first += kLaplacianBlock) {
      const std::size_t count = std::min(kLaplacianBlock, nx - first);
      if (lead > 0 && row + first + lead + count <= points)
        for (std::size_t k = 0; k < K; ++k)
          for (std::size_t j = 0; j < count; j += 8) __builtin_prefetch(fields[k] + row + first + lead + j);
      // The interior of the block: i - 1 and i + 1 both in the row.
      const std::size_t inner = std::max<std::size_t>(first, 1), stop = std::min(first + count, nx - 1);
      for (std::size_t k = 0; k < K; ++k) {
        const T* const c = fields[k] + row;
        const std::array<const T*, R + 1>& neighbour = neighbours[k];
        T* const out = buffer[k];  // out[j] is point row + first + j
        for (std::size_t i = inner; i < stop; ++i) {
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
// Over a block's planes, `first` counts from the block's first point.
template <std::size_t K, class T, class F>
void for_each_laplacian_block(const Grid& grid, const PlaneRange<T, K>& planes,
                              const std::array<const T*, K>& fields, F&& f) {
  switch (grid.axes()) {
    case 1: return detail::laplacian_rows<0>(grid, planes, fields, f);
    case 2: return detail::laplacian_rows<2>(grid, planes, fields, f);
    default: return detail::laplacian_rows<4>(grid, planes, fields, f);
  }
}
template <std::size_t K, class T, class F>
void for_each_laplacian_block(const Grid& grid, const std::array<const T*, K>& fields, F&& f) {
  for_each_laplacian_block(grid, all_planes<T, K>(grid), fields, std::forward<F>(f));
}

}  // namespace backsweep
