#pragma once
// A uniform structured grid in 1, 2 or 3 dimensions, and the stencils fields on it use.
// Arrays are stored in array order [nz, ny, nx], x varying fastest, and every per-axis
// list here (shape, extent, boundary) is in that order too, as config files give them.
//
// Boundaries, per axis:
//   periodic   N points at x_i = i L / N; neighbours wrap around.
//   dirichlet  N interior points at x_i = (i + 1) L / (N + 1); the field is 0 on the walls.
//   neumann    N cells centred at x_i = (i + 1/2) L / N; nothing flows through the walls
//              (the value beyond a wall mirrors the one next to it).
#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "platform/host_device.hpp"

namespace backsweep {

enum class Boundary : unsigned char { periodic, dirichlet, neumann };

std::string_view to_string(Boundary boundary);

// The neighbour of a point along one axis: its index, or, beyond a Dirichlet wall, the
// point itself with `wall` set (the field is 0 there; a coefficient keeps its own value).
struct Neighbour {
  std::size_t index;
  bool wall;
};

// One axis of a grid as a stencil at one point sees it, by value: the host's kernels and
// the device's (gpu/) share it, so both find the same neighbours.
struct GridAxis {
  std::size_t size = 1, stride = 1;
  Boundary boundary = Boundary::periodic;
  double inverse_h2 = 1.0, half_inverse_h = 0.5;  // 1 / h^2 and 1 / (2 h)

  // The neighbour of `point` (at position i along the axis) at i - 1 or i + 1.
  BACKSWEEP_HOST_DEVICE Neighbour below(std::size_t point, std::size_t i) const {
    if (i > 0) return {point - stride, false};
    return beyond_wall(point, +1);
  }
  BACKSWEEP_HOST_DEVICE Neighbour above(std::size_t point, std::size_t i) const {
    if (i + 1 < size) return {point + stride, false};
    return beyond_wall(point, -1);
  }

 private:
  // Beyond the wall: periodic wraps (back the other way by size - 1 strides).
  BACKSWEEP_HOST_DEVICE Neighbour beyond_wall(std::size_t point, int wrap_direction) const {
    switch (boundary) {
      case Boundary::periodic: {
        const std::size_t span = (size - 1) * stride;
        return {wrap_direction > 0 ? point + span : point - span, false};
      }
      case Boundary::dirichlet: return {point, true};
      case Boundary::neumann: break;
    }
    return {point, false};
  }
};

// A point's position along each axis, in array order.
using GridPosition = std::array<std::size_t, 3>;

// What the stencils need of a grid, by value (a device kernel takes a copy).
struct GridAxes {
  static constexpr int kMax = 3;
  int count = 1;
  GridAxis axis[kMax];

  BACKSWEEP_HOST_DEVICE std::size_t points() const {
    std::size_t n = 1;
    for (int a = 0; a < count; ++a) n *= axis[a].size;
    return n;
  }
};

// Where a point kernel runs (a model's kernel_on): the axes its stencils see (the whole
// grid's, or a block's between its ghost planes) and where the grid's points
// [first, first + count) lie among them (from index `at`).
struct KernelFrame {
  static constexpr std::size_t npos = std::size_t(-1);
  GridAxes axes;
  std::size_t first = 0, count = 0, at = 0;

  // The frame's index of the grid's point `point`, or npos where the frame does not own it.
  std::size_t local(std::size_t point) const { return point - first < count ? point - first + at : npos; }
};

class Grid {
 public:
  static constexpr std::size_t kMaxAxes = GridAxes::kMax;

  // Throws std::invalid_argument naming the problem: 1 to 3 axes, the three lists of one
  // length, at least one point and a finite positive extent per axis.
  Grid(std::vector<std::size_t> shape, std::vector<double> extent, std::vector<Boundary> boundary);

  std::size_t axes() const { return shape_.size(); }
  std::size_t points() const { return points_; }
  const std::vector<std::size_t>& shape() const { return shape_; }
  const std::vector<double>& extent() const { return extent_; }
  const std::vector<Boundary>& boundary() const { return boundary_; }
  std::size_t size(std::size_t axis) const { return shape_[axis]; }
  std::size_t stride(std::size_t axis) const { return stride_[axis]; }
  double spacing(std::size_t axis) const { return spacing_[axis]; }
  // Where point i of an axis lies (0 at the domain's lower wall).
  double coordinate(std::size_t axis, std::size_t i) const;
  // The axis an array-order position stands for: "x" for the last, then "y", then "z".
  static std::string_view axis_name(std::size_t axes, std::size_t axis) {
    constexpr std::array<std::string_view, 3> names{"z", "y", "x"};
    return names[kMaxAxes - axes + axis];
  }

  // The neighbour of `point` (at position i along `axis`) at i - 1 or i + 1.
  Neighbour below(std::size_t point, std::size_t i, std::size_t axis) const {
    return axes_.axis[axis].below(point, i);
  }
  Neighbour above(std::size_t point, std::size_t i, std::size_t axis) const {
    return axes_.axis[axis].above(point, i);
  }
  // Position of `point` along each axis.
  GridPosition position(std::size_t point) const {
    GridPosition at{};
    for (std::size_t a = 0; a < axes(); ++a) at[a] = point / stride_[a] % shape_[a];
    return at;
  }
  // The axes by value, for the stencil kernels (models/stencil.hpp).
  const GridAxes& stencil_axes() const { return axes_; }
  // The whole grid as a point kernel's frame.
  KernelFrame frame() const { return {axes_, 0, points_, 0}; }

 private:
  std::vector<std::size_t> shape_;
  std::vector<double> extent_;
  std::vector<Boundary> boundary_;
  std::vector<std::size_t> stride_;
  std::vector<double> spacing_;
  std::size_t points_ = 1;
  GridAxes axes_;
};

// f(point, at) for every point in array order, with its position `at` along each axis
// kept up to date by counting rather than by dividing (for stencil kernels).
template <class F>
void for_each_point(const Grid& grid, F&& f) {
  GridPosition at{};
  const std::size_t last = grid.axes() - 1;
  for (std::size_t point = 0; point < grid.points(); ++point) {
    f(point, at);
    for (std::size_t a = last + 1; a-- > 0;) {  // carry, x first
      if (++at[a] < grid.size(a)) break;
      at[a] = 0;
    }
  }
}

}  // namespace backsweep
