#pragma once
// Heat conduction with a conductivity field on a grid of 1 to 3 axes:
//   u_t = div(k grad u),
// in conservative form with face values k_{i+1/2} = (k_i + k_{i+1}) / 2, as `div_grad(k, u)`
// in a config. The state is u; the parameters are the field k, one value per grid point
// (what an inverse problem recovers). A hand-written kernel at one point (PointKernel),
// run over the grid here and by one device thread a point in gpu/: one pass for the
// right-hand side, one for the VJP, which gathers at each point what its neighbours'
// stencils owe it (the stencils' exact transposes, models/stencil.hpp).
#include <cstddef>
#include <string_view>
#include <utility>

#include "models/grid.hpp"
#include "models/grid_layout.hpp"
#include "models/sparsity.hpp"
#include "models/stencil.hpp"

namespace backsweep::models {

class Heat {
 public:
  static constexpr std::string_view name = "heat";

  explicit Heat(Grid grid) : grid_(std::move(grid)) {}
  static GridKernelParts parts(const Grid& grid) { return {GridLayout(grid, {"u"}, {"k"}, 0), {}, {}}; }

  const Grid& grid() const { return grid_; }
  std::size_t state_size() const { return grid_.points(); }
  std::size_t param_size() const { return grid_.points(); }  // k at every point

  // The stencils' footprints: implicit methods factor sparse Newton matrices on them.
  SparsityPattern sparsity() const { return traced_sparsity(*this); }

  // The right-hand side and VJP at one point (what one device thread computes).
  struct PointKernel {
    GridAxes grid;

    BACKSWEEP_EXEC_CHECK_DISABLE
    template <class T>
    BACKSWEEP_HOST_DEVICE void rate(std::size_t point, const GridPosition& at, T, const T* u, const T* k,
                                    T* dudt) const {
      dudt[point] = stencils::div_grad(grid, point, at, k, u);
    }
    // lambdaᵀ df/du (div_grad is symmetric in u) and lambdaᵀ df/dk (vjp_k may be null).
    BACKSWEEP_HOST_DEVICE void vjp(std::size_t point, const GridPosition& at, const double* u, const double* k,
                                   const double* lambda, double* vjp_u, double* vjp_k) const {
      vjp_u[point] = stencils::div_grad(grid, point, at, k, lambda);
      if (vjp_k) vjp_k[point] = stencils::div_grad_by_coefficient(grid, point, at, u, lambda);
    }
  };
  PointKernel kernel_on(const KernelFrame& frame) const { return {frame.axes}; }
  PointKernel kernel() const { return kernel_on(grid_.frame()); }

  template <class T>
  void operator()(T t, const T* u, const T* k, T* dudt) const {
    const PointKernel at_point = kernel();
    for_each_point(grid_, [&](std::size_t point, const auto& at) { at_point.rate(point, at, t, u, k, dudt); });
  }

  // lambdaᵀ df/du and lambdaᵀ df/dk (vjp_k may be null).
  void vjp(double, const double* u, const double* k, const double* lambda, double* vjp_u, double* vjp_k) const {
    const PointKernel at_point = kernel();
    for_each_point(grid_, [&](std::size_t point, const auto& at) {
      at_point.vjp(point, at, u, k, lambda, vjp_u, vjp_k);
    });
  }

 private:
  Grid grid_;
};

}  // namespace backsweep::models
