#pragma once
// Gray–Scott reaction–diffusion (Pearson, Science 261, 1993) on a grid of 1 to 3 axes:
//   u_t = D1 lap(u) - u v^2 + gamma (1 - u),   v_t = D2 lap(v) + u v^2 - (gamma + kappa) v.
// The state is the field u (one value per grid point, array order) followed by v.
// Parameters (D1, D2, gamma, kappa), defaults (8e-5, 4e-5, 0.024, 0.06).
//
// A hand-written kernel for memory bandwidth: one pass over the grid reads u and v and
// writes both derivatives (32 bytes a point); the VJP reads u, v and both adjoints and
// writes two (48 bytes a point). The Laplacian is symmetric, so the VJP applies it to
// the adjoints, and Σ λ lap(u) = Σ u lap(λ) gives dJ/dD without another stencil. Where a
// pass touches more than half the last-level cache, the derivatives go out by streaming
// stores (no read for ownership: a third less traffic on the RHS).
#include <array>
#include <cstddef>
#include <string_view>
#include <type_traits>
#include <utility>

#include "models/grid.hpp"
#include "models/grid_layout.hpp"
#include "models/grid_laplacian.hpp"
#include "models/sparsity.hpp"

namespace backsweep::models {

// The double kernels (gray_scott.cpp), built for baseline x86-64 and for AVX2, chosen when
// the program starts. Each point's arithmetic is the same in both (no fused multiply-add),
// so the fields are bitwise the same, and dJ/dp's sums run in four fixed lanes, so they are
// too. dJ/dp is summed row by row (x rows) and the rows' sums added in the grid's order, so
// a grid split into blocks (models/grid_block.hpp) adds the same numbers in the same order.
void gray_scott_rates(const Grid& grid, const double* y, const double* p, double* dydt);
void gray_scott_vjp(const Grid& grid, const double* y, const double* p, const double* lambda, double* vjp_y,
                    double* vjp_p);
// The same over a block's planes (its own points; ghost planes of u and v for the rates, of
// the adjoints for the VJP). The VJP gives each row's four sums, row after row, in
// `row_sums`, for the caller to add in the whole grid's order.
void gray_scott_rates(const Grid& grid, const PlaneRange<double, 2>& planes, const double* y, const double* p,
                      double* dydt);
void gray_scott_vjp(const Grid& grid, const PlaneRange<double, 2>& lambda_planes, const double* y, const double* p,
                    const double* lambda, double* vjp_y, double* row_sums);

class GrayScott {
 public:
  static constexpr std::string_view name = "gray_scott";
  static constexpr std::array<std::string_view, 2> field_names{"u", "v"};
  static constexpr std::array<std::string_view, 4> param_names{"D1", "D2", "gamma", "kappa"};
  static constexpr std::array<double, 4> default_params{8e-5, 4e-5, 0.024, 0.06};

  explicit GrayScott(Grid grid) : grid_(std::move(grid)) {}
  static GridKernelParts parts(const Grid& grid) {
    return {GridLayout(grid, {field_names.begin(), field_names.end()}, {}, param_names.size()),
            {param_names.begin(), param_names.end()},
            {default_params.begin(), default_params.end()}};
  }

  const Grid& grid() const { return grid_; }
  std::size_t state_size() const { return 2 * grid_.points(); }
  std::size_t param_size() const { return 4; }

  // The stencils' footprints: implicit methods factor sparse Newton matrices on them.
  SparsityPattern sparsity() const { return traced_sparsity(*this); }

  template <class T>
  void operator()(T, const T* y, const T* p, T* dydt) const {
    if constexpr (std::is_same_v<T, double>) gray_scott_rates(grid_, y, p, dydt);
    else rates(grid_, y, p, dydt);
  }

  // lambdaᵀ df/dy and lambdaᵀ df/dp (vjp_p may be null), one pass over the grid.
  void vjp(double, const double* y, const double* p, const double* lambda, double* vjp_y,
           double* vjp_p) const {
    gray_scott_vjp(grid_, y, p, lambda, vjp_y, vjp_p);
  }

  // The right-hand side's loop, for any scalar; values run it from gray_scott.cpp, where
  // it is built for AVX2 too. `out`, when given, stores each block of derivatives
  // (streaming stores on fields too large to stay in cache).
  template <class T, class Out = std::nullptr_t>
  static void rates(const Grid& grid, const T* y, const T* p, T* dydt, Out out = nullptr) {
    rates(grid, all_planes<T, 2>(grid), y, p, dydt, out);
  }
  // Over a block's planes: y and dydt hold the block's points, u's and v's ghost planes in
  // `planes`.
  template <class T, class Out = std::nullptr_t>
  static void rates(const Grid& grid, const PlaneRange<T, 2>& planes, const T* y, const T* p, T* dydt,
                    Out out = nullptr) {
    const std::size_t n = planes.count * plane_points(grid);
    const T* u = y;
    const T* v = y + n;
    const T d1 = p[0], d2 = p[1], gamma = p[2], decay = p[2] + p[3];
    T buffer[2][std::is_same_v<Out, std::nullptr_t> ? 1 : kLaplacianBlock];
    for_each_laplacian_block<2, T>(grid, planes, {u, v}, [&](std::size_t first, std::size_t count,
                                                             const std::array<const T*, 2>& lap) {
      const T* __restrict ub = u + first;
      const T* __restrict vb = v + first;
      T* __restrict du = std::is_same_v<Out, std::nullptr_t> ? dydt + first : buffer[0];
      T* __restrict dv = std::is_same_v<Out, std::nullptr_t> ? dydt + n + first : buffer[1];
#pragma omp simd
      for (std::size_t j = 0; j < count; ++j) {
        const T uvv = ub[j] * vb[j] * vb[j];
        du[j] = d1 * lap[0][j] - uvv + gamma * (T(1) - ub[j]);
        dv[j] = d2 * lap[1][j] + uvv - decay * vb[j];
      }
      if constexpr (!std::is_same_v<Out, std::nullptr_t>) {
        out(dydt + first, du, count);
        out(dydt + n + first, dv, count);
      }
    });
  }

 private:
  Grid grid_;
};

}  // namespace backsweep::models
