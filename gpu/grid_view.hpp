#pragma once
// GridPositions: where a point lies, one thread a point, without a division.
// GridView: what a device kernel needs of a Grid (models/grid.hpp), by value, and the
// Laplacian at one point, one thread a point. Its arithmetic is the host kernel's
// (models/grid_laplacian.hpp) term for term, so both give bitwise the same fields: the
// centre weight first, then the two x neighbours (added first where both are in the
// row), then the other axes' neighbours below and above, outermost axis first.
#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "gpu/system.hpp"
#include "models/grid.hpp"
#include "platform/host_device.hpp"

namespace BACKSWEEP_GPU_NAMESPACE {

// Division by a divisor fixed in advance, by a multiply and a shift (Granlund and
// Montgomery, 1994): a grid point's position costs no hardware division, which is slow
// on CPUs and emulated on GPUs. Dividends and divisors below 2^32.
struct FastDivisor {
  std::uint32_t divisor = 1, multiplier = 1;
  unsigned shift = 0;

  FastDivisor() = default;
  explicit FastDivisor(std::uint32_t d) : divisor(d) {
    while ((std::uint64_t(1) << shift) < d) ++shift;
    multiplier = std::uint32_t((std::uint64_t(1) << 32) * ((std::uint64_t(1) << shift) - d) / d + 1);
  }
  BACKSWEEP_HOST_DEVICE std::uint32_t quotient(std::uint32_t x) const {
    const std::uint64_t high = (std::uint64_t(x) * multiplier) >> 32;
    return std::uint32_t((high + x) >> shift);
  }
};

// Where a point lies along each axis (Grid::position) by multiplies, for one thread a point.
struct GridPositions {
  int count = 1;
  std::uint32_t size[GridAxes::kMax] = {1, 1, 1};
  FastDivisor by_size[GridAxes::kMax];

  explicit GridPositions(const Grid& grid) : count(int(grid.axes())) {
    if (grid.points() >= (std::size_t(1) << 32))
      throw std::invalid_argument("device kernels take grids of fewer than 2^32 points");
    for (int a = 0; a < count; ++a) {
      size[a] = std::uint32_t(grid.size(std::size_t(a)));
      by_size[a] = FastDivisor(size[a]);
    }
  }
  BACKSWEEP_HOST_DEVICE GridPosition operator()(std::size_t point) const {
    GridPosition at{};
    std::uint32_t rest = std::uint32_t(point);
BACKSWEEP_UNROLL
    for (int a = GridAxes::kMax - 1; a >= 0; --a) {
      if (a >= count) continue;
      const std::uint32_t q = by_size[a].quotient(rest);
      at[a] = rest - q * size[a];
      rest = q;
    }
    return at;
  }
};

// Every index into the view's arrays is a constant once its loops unroll: an array
// indexed at run time would go to a GPU thread's local memory.
struct GridView {
  static constexpr int kOther = Grid::kMaxAxes - 1;  // axes besides x, at most

  std::size_t points = 1;
  int other = 0;  // the axes besides x (axes - 1), outermost first
  // Along x, the row: its length, 1 / h^2, and beyond its two ends the neighbour's offset
  // and weight (0 for a Dirichlet wall).
  std::uint32_t nx = 1;
  FastDivisor by_nx;
  double cx = 0.0, centre = 0.0;
  std::ptrdiff_t x_wall_offset[2] = {};
  double x_wall_weight[2] = {};
  // The same for the other axes, and their strides.
  std::uint32_t shape[kOther] = {1, 1};
  FastDivisor by_shape[kOther];
  std::ptrdiff_t stride[kOther] = {};
  double weight[kOther] = {};
  std::ptrdiff_t wall_offset[kOther][2] = {};
  double wall_weight[kOther][2] = {};

  explicit GridView(const Grid& grid) : points(grid.points()), other(int(grid.axes()) - 1) {
    if (grid.points() >= (std::size_t(1) << 32))
      throw std::invalid_argument("device kernels take grids of fewer than 2^32 points");
    const std::size_t x = grid.axes() - 1;
    for (std::size_t a = 0; a <= x; ++a) {
      const double c = 1.0 / (grid.spacing(a) * grid.spacing(a));
      // The neighbours beyond the walls, as the grid finds them from its first corner.
      const std::size_t last = (grid.size(a) - 1) * grid.stride(a);
      const Neighbour below = grid.below(0, 0, a), above = grid.above(last, grid.size(a) - 1, a);
      const std::ptrdiff_t offsets[2] = {std::ptrdiff_t(below.index), std::ptrdiff_t(above.index) - std::ptrdiff_t(last)};
      const double weights[2] = {below.wall ? 0.0 : c, above.wall ? 0.0 : c};
      if (a == x) {
        nx = std::uint32_t(grid.size(a));
        by_nx = FastDivisor(nx);
        cx = c;
        for (int k = 0; k < 2; ++k) x_wall_offset[k] = offsets[k], x_wall_weight[k] = weights[k];
      } else {
        shape[a] = std::uint32_t(grid.size(a));
        by_shape[a] = FastDivisor(shape[a]);
        stride[a] = std::ptrdiff_t(grid.stride(a));
        weight[a] = c;
        for (int k = 0; k < 2; ++k) wall_offset[a][k] = offsets[k], wall_weight[a][k] = weights[k];
      }
    }
    centre = -2.0 * cx;
    for (std::size_t a = 0; a < x; ++a) centre -= 2.0 / (grid.spacing(a) * grid.spacing(a));
  }

  // Where a point lies: along x, and along the other axes.
  struct Position {
    std::uint32_t i = 0;
    std::uint32_t at[kOther] = {};
  };
  BACKSWEEP_HOST_DEVICE Position position(std::size_t point) const {
    Position p;
    std::uint32_t rest = by_nx.quotient(std::uint32_t(point));
    p.i = std::uint32_t(point) - rest * nx;
BACKSWEEP_UNROLL
    for (int a = kOther - 1; a >= 0; --a) {
      if (a >= other) continue;
      const std::uint32_t q = a > 0 ? by_shape[a].quotient(rest) : 0;
      p.at[a] = rest - q * shape[a];
      rest = q;
    }
    return p;
  }

  // lap(u) at `point`, which lies at `p`.
  BACKSWEEP_HOST_DEVICE double laplacian(const double* u, std::size_t point, const Position& p) const {
    const double* c = u + point;
    double sum;
    if (p.i > 0 && p.i + 1 < nx) {
      sum = c[0] * centre + (c[-1] + c[1]) * cx;
    } else {
      const std::ptrdiff_t left = p.i > 0 ? -1 : x_wall_offset[0];
      const std::ptrdiff_t right = p.i + 1 < nx ? 1 : x_wall_offset[1];
      const double left_weight = p.i > 0 ? cx : x_wall_weight[0];
      const double right_weight = p.i + 1 < nx ? cx : x_wall_weight[1];
      sum = c[0] * centre + c[left] * left_weight + c[right] * right_weight;
    }
BACKSWEEP_UNROLL
    for (int a = 0; a < kOther; ++a) {
      if (a >= other) continue;
      const bool has_below = p.at[a] > 0, has_above = p.at[a] + 1 < shape[a];
      sum += c[has_below ? -stride[a] : wall_offset[a][0]] * (has_below ? weight[a] : wall_weight[a][0]);
      sum += c[has_above ? stride[a] : wall_offset[a][1]] * (has_above ? weight[a] : wall_weight[a][1]);
    }
    return sum;
  }
};

}  // namespace BACKSWEEP_GPU_NAMESPACE
