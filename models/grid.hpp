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

namespace backsweep {

enum class Boundary : unsigned char { periodic, dirichlet, neumann };

std::string_view to_string(Boundary boundary);

// The neighbour of a point along one axis: its index, or, beyond a Dirichlet wall, the
// point itself with `wall` set (the field is 0 there; a coefficient keeps its own value).
struct Neighbour {
  std::size_t index;
  bool wall;
};

class Grid {
 public:
  static constexpr std::size_t kMaxAxes = 3;

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
    if (i > 0) return {point - stride_[axis], false};
    return beyond_wall(point, axis, +1);
  }
  Neighbour above(std::size_t point, std::size_t i, std::size_t axis) const {
    if (i + 1 < shape_[axis]) return {point + stride_[axis], false};
    return beyond_wall(point, axis, -1);
  }
  // Position of `point` along each axis.
  std::array<std::size_t, kMaxAxes> position(std::size_t point) const {
    std::array<std::size_t, kMaxAxes> at{};
    for (std::size_t a = 0; a < axes(); ++a) at[a] = point / stride_[a] % shape_[a];
    return at;
  }

 private:
  // Beyond the wall: periodic wraps (back the other way by shape - 1 strides).
  Neighbour beyond_wall(std::size_t point, std::size_t axis, int wrap_direction) const {
    switch (boundary_[axis]) {
      case Boundary::periodic: {
        const std::size_t span = (shape_[axis] - 1) * stride_[axis];
        return {wrap_direction > 0 ? point + span : point - span, false};
      }
      case Boundary::dirichlet: return {point, true};
      case Boundary::neumann: break;
    }
    return {point, false};
  }

  std::vector<std::size_t> shape_;
  std::vector<double> extent_;
  std::vector<Boundary> boundary_;
  std::vector<std::size_t> stride_;
  std::vector<double> spacing_;
  std::size_t points_ = 1;
};

// f(point, at) for every point in array order, with its position `at` along each axis
// kept up to date by counting rather than by dividing (for stencil kernels).
template <class F>
void for_each_point(const Grid& grid, F&& f) {
  std::array<std::size_t, Grid::kMaxAxes> at{};
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
