#pragma once
// Advection–diffusion of a scalar on a grid of 1 to 3 axes, with constant diffusivity D
// and velocity v:
//   u_t = D lap(u) - sum over axes of v_a du/da   (central differences),
// Parameters (D, then v per axis in array order: v_z, v_y, v_x as the grid has them).
// A hand-written kernel: one pass for the right-hand side; one for the VJP, scattering
// λ back through each stencil (exact at every wall: with a Neumann mirror the central
// difference is not antisymmetric, and the transpose says so).
#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "models/grid.hpp"
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

  // The stencils' footprints: implicit methods factor sparse Newton matrices on them.
  SparsityPattern sparsity() const { return traced_sparsity(*this); }

  template <class T>
  void operator()(T, const T* u, const T* p, T* dudt) const {
    const std::size_t axes = grid_.axes();
    for_each_point(grid_, [&](std::size_t point, const auto& at) {
      T rate = p[0] * kLaplacian.apply(grid_, point, at, u, u);
      for (std::size_t a = 0; a < axes; ++a) rate -= p[1 + a] * derivative(a).apply(grid_, point, at, u, u);
      dudt[point] = rate;
    });
  }

  // lambdaᵀ df/du and lambdaᵀ df/dp (vjp_p may be null). dJ/dp is summed in point order.
  void vjp(double, const double* u, const double* p, const double* lambda, double* vjp_u, double* vjp_p) const {
    const std::size_t axes = grid_.axes();
    std::fill_n(vjp_u, grid_.points(), 0.0);
    if (vjp_p) std::fill_n(vjp_p, 1 + axes, 0.0);
    for_each_point(grid_, [&](std::size_t point, const auto& at) {
      const double g = lambda[point];
      kLaplacian.transpose(grid_, point, at, u, u, p[0] * g, vjp_u, static_cast<double*>(nullptr));
      if (vjp_p) vjp_p[0] += g * kLaplacian.apply(grid_, point, at, u, u);
      for (std::size_t a = 0; a < axes; ++a) {
        derivative(a).transpose(grid_, point, at, u, u, -p[1 + a] * g, vjp_u, static_cast<double*>(nullptr));
        if (vjp_p) vjp_p[1 + a] -= g * derivative(a).apply(grid_, point, at, u, u);
      }
    });
  }

 private:
  static constexpr Stencil kLaplacian{StencilKind::laplacian};
  static constexpr Stencil derivative(std::size_t axis) { return {StencilKind::derivative, axis}; }
  Grid grid_;
};

}  // namespace backsweep::models
