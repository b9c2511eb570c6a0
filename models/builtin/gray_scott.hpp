#pragma once
// Gray–Scott reaction–diffusion (Pearson, Science 261, 1993) on a grid of 1 to 3 axes:
//   u_t = D1 lap(u) - u v^2 + gamma (1 - u),   v_t = D2 lap(v) + u v^2 - (gamma + kappa) v.
// The state is the field u (one value per grid point, array order) followed by v.
// Parameters (D1, D2, gamma, kappa), defaults (8e-5, 4e-5, 0.024, 0.06).
//
// A hand-written kernel for memory bandwidth: one pass over the grid reads u and v and
// writes both derivatives (32 bytes a point); the VJP reads u, v and both adjoints and
// writes two (48 bytes a point). The Laplacian is symmetric, so the VJP applies it to
// the adjoints, and Σ λ lap(u) = Σ u lap(λ) gives dJ/dD without another stencil.
#include <array>
#include <cstddef>
#include <string_view>
#include <utility>

#include "models/grid.hpp"
#include "models/grid_laplacian.hpp"
#include "models/sparsity.hpp"

namespace backsweep::models {

class GrayScott {
 public:
  static constexpr std::string_view name = "gray_scott";
  static constexpr std::array<std::string_view, 2> field_names{"u", "v"};
  static constexpr std::array<std::string_view, 4> param_names{"D1", "D2", "gamma", "kappa"};
  static constexpr std::array<double, 4> default_params{8e-5, 4e-5, 0.024, 0.06};

  explicit GrayScott(Grid grid) : grid_(std::move(grid)) {}

  const Grid& grid() const { return grid_; }
  std::size_t state_size() const { return 2 * grid_.points(); }
  std::size_t param_size() const { return 4; }

  // The stencils' footprints: implicit methods factor sparse Newton matrices on them.
  SparsityPattern sparsity() const { return traced_sparsity(*this); }

  template <class T>
  void operator()(T, const T* y, const T* p, T* dydt) const {
    const std::size_t n = grid_.points();
    const T* u = y;
    const T* v = y + n;
    const T d1 = p[0], d2 = p[1], gamma = p[2], decay = p[2] + p[3];
    for_each_laplacian_block<2, T>(grid_, {u, v}, [&](std::size_t first, std::size_t count,
                                                      const std::array<const T*, 2>& lap) {
      const T* __restrict ub = u + first;
      const T* __restrict vb = v + first;
      T* __restrict du = dydt + first;
      T* __restrict dv = dydt + n + first;
#pragma omp simd
      for (std::size_t j = 0; j < count; ++j) {
        const T uvv = ub[j] * vb[j] * vb[j];
        du[j] = d1 * lap[0][j] - uvv + gamma * (T(1) - ub[j]);
        dv[j] = d2 * lap[1][j] + uvv - decay * vb[j];
      }
    });
  }

  // lambdaᵀ df/dy and lambdaᵀ df/dp (vjp_p may be null), one pass over the grid.
  void vjp(double, const double* y, const double* p, const double* lambda, double* vjp_y,
           double* vjp_p) const {
    const std::size_t n = grid_.points();
    const double d1 = p[0], d2 = p[1], gamma = p[2], decay = p[2] + p[3];
    double dd1 = 0, dd2 = 0, dgamma = 0, dkappa = 0;
    for_each_laplacian_block<2, double>(grid_, {lambda, lambda + n}, [&](std::size_t first, std::size_t count,
                                                                         const std::array<const double*, 2>& lap) {
      const double* __restrict u = y + first;
      const double* __restrict v = y + n + first;
      const double* __restrict lu = lambda + first;
      const double* __restrict lv = lambda + n + first;
      double* __restrict vjp_u = vjp_y + first;
      double* __restrict vjp_v = vjp_y + n + first;
      // Summed in lanes: the order is fixed by the build, so every call agrees bitwise.
#pragma omp simd reduction(+ : dd1, dd2, dgamma, dkappa)
      for (std::size_t j = 0; j < count; ++j) {
        const double vv = v[j] * v[j], uv2 = 2.0 * u[j] * v[j];
        vjp_u[j] = d1 * lap[0][j] - lu[j] * (vv + gamma) + lv[j] * vv;
        vjp_v[j] = d2 * lap[1][j] + (lv[j] - lu[j]) * uv2 - lv[j] * decay;
        dd1 += u[j] * lap[0][j];
        dd2 += v[j] * lap[1][j];
        dgamma += lu[j] * (1.0 - u[j]) - lv[j] * v[j];
        dkappa -= lv[j] * v[j];
      }
    });
    if (vjp_p) {
      vjp_p[0] = dd1;
      vjp_p[1] = dd2;
      vjp_p[2] = dgamma;
      vjp_p[3] = dkappa;
    }
  }

 private:
  Grid grid_;
};

}  // namespace backsweep::models
