#pragma once
// Advection–diffusion of a scalar on a grid of 1 to 3 axes, with constant diffusivity D
// and velocity v:
//   u_t = D lap(u) - sum over axes of v_a du/da   (central differences),
// Parameters (D, then v per axis in array order: v_z, v_y, v_x as the grid has them).
// A hand-written kernel at one point (PointKernel), run over the grid here and by one
// device thread a point in gpu/: one pass for the right-hand side; one for the VJP,
// gathering what each point's neighbours' stencils owe it (exact at every wall: with a
// Neumann mirror the central difference is not antisymmetric, and the transpose says so).
#include <algorithm>
#include <array>
#include <cstddef>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "models/grid.hpp"
#include "models/grid_layout.hpp"
#include "models/sparsity.hpp"
#include "models/stencil.hpp"

namespace backsweep::models {

class AdvectionDiffusion {
 public:
  static constexpr std::string_view name = "advection_diffusion";

  explicit AdvectionDiffusion(Grid grid) : grid_(std::move(grid)) {}

  const Grid& grid() const { return grid_; }
  std::size_t state_size() const { return grid_.points(); }
  std::size_t param_size() const { return 1 + grid_.axes(); }
  std::vector<std::string> param_names() const {
    std::vector<std::string> names{"D"};
    for (std::size_t a = 0; a < grid_.axes(); ++a) {
      std::string name = "v";  // appended, not concatenated: GCC 12 warns falsely (-Wrestrict) on "v" + s
      name += Grid::axis_name(grid_.axes(), a);
      names.push_back(name);
    }
    return names;
  }
  // D and the velocity: no defaults, the config gives them.
  static GridKernelParts parts(const Grid& grid) {
    std::vector<std::string> scalars = AdvectionDiffusion(grid).param_names();
    const std::size_t count = scalars.size();
    return {GridLayout(grid, {"u"}, {}, count), std::move(scalars),
            std::vector<double>(count, std::numeric_limits<double>::quiet_NaN())};
  }

  // The stencils' footprints: implicit methods factor sparse Newton matrices on them.
  SparsityPattern sparsity() const { return traced_sparsity(*this); }

  static constexpr int kMaxParams = 1 + GridAxes::kMax;

  // The right-hand side, the VJP and the terms of dJ/dp at one point (what one device
  // thread computes).
  struct PointKernel {
    GridAxes grid;

    BACKSWEEP_EXEC_CHECK_DISABLE
    template <class T>
    BACKSWEEP_HOST_DEVICE void rate(std::size_t point, const GridPosition& at, T, const T* u, const T* p,
                                    T* dudt) const {
      T rate = p[0] * stencils::laplacian<T>(grid, point, at, u);
BACKSWEEP_UNROLL
      for (int a = 0; a < GridAxes::kMax; ++a)
        if (a < grid.count) rate -= p[1 + a] * stencils::derivative(grid, point, at, a, u);
      dudt[point] = rate;
    }
    // lambdaᵀ df/du (the Laplacian is symmetric; the derivatives are transposed). dJ/dp are
    // sums over the grid: parameter_terms.
    BACKSWEEP_HOST_DEVICE void vjp(std::size_t point, const GridPosition& at, const double*, const double* p,
                                   const double* lambda, double* vjp_u, double*) const {
      double sum = p[0] * stencils::laplacian<double>(grid, point, at, lambda);
BACKSWEEP_UNROLL
      for (int a = 0; a < GridAxes::kMax; ++a)
        if (a < grid.count) sum -= p[1 + a] * stencils::derivative_transpose(grid, point, at, a, lambda);
      vjp_u[point] = sum;
    }
    // The point's terms of lambdaᵀ df/dp: D, then the velocity per axis (0 past the axes).
    BACKSWEEP_HOST_DEVICE std::array<double, kMaxParams> parameter_terms(std::size_t point, const GridPosition& at,
                                                                        const double* u,
                                                                        const double* lambda) const {
      const double g = lambda[point];
      std::array<double, kMaxParams> terms{};
      terms[0] = g * stencils::laplacian<double>(grid, point, at, u);
BACKSWEEP_UNROLL
      for (int a = 0; a < GridAxes::kMax; ++a)
        if (a < grid.count) terms[1 + a] = -(g * stencils::derivative(grid, point, at, a, u));
      return terms;
    }
  };
  PointKernel kernel_on(const KernelFrame& frame) const { return {frame.axes}; }
  PointKernel kernel() const { return kernel_on(grid_.frame()); }

  template <class T>
  void operator()(T t, const T* u, const T* p, T* dudt) const {
    const PointKernel at_point = kernel();
    for_each_point(grid_, [&](std::size_t point, const auto& at) { at_point.rate(point, at, t, u, p, dudt); });
  }

  // lambdaᵀ df/du and lambdaᵀ df/dp (vjp_p may be null). dJ/dp is summed x row by x row,
  // the rows' sums added in order: a grid split over ranks sums alike (GridBlock::fold_rows).
  void vjp(double, const double* u, const double* p, const double* lambda, double* vjp_u, double* vjp_p) const {
    const PointKernel at_point = kernel();
    if (vjp_p) std::fill_n(vjp_p, param_size(), 0.0);
    const std::size_t row = grid_.size(grid_.axes() - 1);
    std::array<double, kMaxParams> row_sums{};
    std::size_t in_row = 0;
    for_each_point(grid_, [&](std::size_t point, const auto& at) {
      at_point.vjp(point, at, u, p, lambda, vjp_u, nullptr);
      if (!vjp_p) return;
      const auto terms = at_point.parameter_terms(point, at, u, lambda);
      for (std::size_t j = 0; j < param_size(); ++j) row_sums[j] += terms[j];
      if (++in_row < row) return;
      for (std::size_t j = 0; j < param_size(); ++j) vjp_p[j] += row_sums[j];
      row_sums = {};
      in_row = 0;
    });
  }

 private:
  Grid grid_;
};

}  // namespace backsweep::models
