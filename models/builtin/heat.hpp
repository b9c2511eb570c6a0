#pragma once
// Heat conduction with a conductivity field on a grid of 1 to 3 axes:
//   u_t = div(k grad u),
// in conservative form with face values k_{i+1/2} = (k_i + k_{i+1}) / 2, as `div_grad(k, u)`
// in a config. The state is u; the parameters are the field k, one value per grid point
// (what an inverse problem recovers). A hand-written kernel: one pass over the grid for
// the right-hand side, one for the VJP, which scatters λ back through each point's
// stencil to u and k at once (the stencil's exact transpose, models/stencil.hpp).
#include <algorithm>
#include <cstddef>
#include <string_view>
#include <utility>

#include "models/grid.hpp"
#include "models/sparsity.hpp"
#include "models/stencil.hpp"

namespace backsweep::models {

class Heat {
 public:
  static constexpr std::string_view name = "heat";

  explicit Heat(Grid grid) : grid_(std::move(grid)) {}

  const Grid& grid() const { return grid_; }
  std::size_t state_size() const { return grid_.points(); }
  std::size_t param_size() const { return grid_.points(); }  // k at every point

  // The stencils' footprints: implicit methods factor sparse Newton matrices on them.
  SparsityPattern sparsity() const { return traced_sparsity(*this); }

  template <class T>
  void operator()(T, const T* u, const T* k, T* dudt) const {
    for_each_point(grid_, [&](std::size_t point, const auto& at) {
      dudt[point] = kDivGrad.apply(grid_, point, at, u, k);
    });
  }

  // lambdaᵀ df/du and lambdaᵀ df/dk (vjp_k may be null).
  void vjp(double, const double* u, const double* k, const double* lambda, double* vjp_u, double* vjp_k) const {
    std::fill_n(vjp_u, grid_.points(), 0.0);
    if (vjp_k) std::fill_n(vjp_k, grid_.points(), 0.0);
    for_each_point(grid_, [&](std::size_t point, const auto& at) {
      kDivGrad.transpose(grid_, point, at, u, k, lambda[point], vjp_u, vjp_k);
    });
  }

 private:
  static constexpr Stencil kDivGrad{StencilKind::div_grad};
  Grid grid_;
};

}  // namespace backsweep::models
