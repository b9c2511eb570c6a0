#pragma once
// Multigrid's grid transfers (multigrid.hpp) applied axis by axis: prolongation P, the
// product of one interpolation along each axis, and restriction R = Pᵀ, the product of
// their transposes in reverse order. A few operations a point, vectorised along rows,
// where P and R as sparse matrices load an index for each of their up to 8 and 27 entries
// a row. (The sparse forms remain: the Galerkin products A_c = R A P are built from them.)
#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "models/grid.hpp"

namespace backsweep::krylov {

// The unknowns' layout: `fields` fields on a grid of `shape` (array order, x last), field
// after field, then `extra` unknowns that are not on the grid.
struct GridUnknowns {
  std::vector<std::size_t> shape = {};
  std::vector<Boundary> boundary = {};
  std::size_t fields = 1, extra = 0;
  std::size_t points() const;
  std::size_t size() const { return fields * points() + extra; }
};

// Interpolation along one axis: each fine index's (coarse index, weight) pairs, one or two.
struct AxisInterpolation {
  std::size_t coarse = 0;
  std::vector<std::array<std::pair<std::uint32_t, double>, 2>> entries;
  std::vector<unsigned char> count;
};

// How multigrid coarsens an axis of `size` points: keeping every other point (an even
// number, periodic) where it has at least 3, coarse point k at fine 2k + 1, fine 2k between
// coarse k - 1 and k (at a Dirichlet wall the missing neighbour is 0, at a Neumann wall the
// coarse value is held); else keeping the axis as it is.
AxisInterpolation axis_interpolation(std::size_t size, Boundary boundary);
bool coarsens(std::size_t size, Boundary boundary);

class GridTransfer {
 public:
  GridTransfer() = default;
  // From `coarse` to `fine`, along[a] interpolating axis a of fine.shape.
  GridTransfer(const GridUnknowns& fine, std::vector<AxisInterpolation> along);
  // fine = P coarse.
  void prolong(const double* coarse, double* fine);
  // coarse = Pᵀ fine.
  void restrict_to(const double* fine, double* coarse);

 private:
  // Three axes (z, y, x), a missing leading one of size 1 and interpolated by the identity.
  std::array<std::size_t, 3> fine_{1, 1, 1}, coarse_{1, 1, 1};
  std::array<AxisInterpolation, 3> along_;
  std::size_t fields_ = 0, extra_ = 0;
  std::vector<double> x_done_, xy_done_;  // after one and two axes
};

}  // namespace backsweep::krylov
