#pragma once
// The 1-D Brusselator reaction-diffusion system (Hairer & Wanner, Solving ODEs II, IV.1,
// "BRUSS"), a standard stiff test: on (0, 1) with u = A, v = B / A at both ends,
//   u_t = A + u^2 v - (B + 1) u + alpha u_xx,   v_t = B u - u^2 v + alpha v_xx,
// by central differences on n interior points x_i = (i + 1) / (n + 1). The state is the
// field u (n values) followed by the field v, so 2n unknowns. Parameters (A, B, alpha),
// defaults (1, 3, 1/50); initial u = 1 + sin(2 pi x), v = 3. Diffusion makes it stiff:
// the Jacobian's spectral radius is about 4 alpha (n + 1)^2 (2e6 at n = 5000).
// It declares its sparsity pattern and writes its VJP by hand, so implicit methods solve
// it with sparse LU and every derivative costs O(n).
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <numbers>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "models/sparsity.hpp"

namespace backsweep::models {

class Brusselator1D {
 public:
  static constexpr std::string_view name = "brusselator_1d";
  static constexpr std::size_t default_points = 500;
  static constexpr std::array<std::string_view, 3> param_names{"A", "B", "alpha"};
  static constexpr std::array<double, 3> default_params{1.0, 3.0, 0.02};

  // Throws std::invalid_argument for n = 0.
  explicit Brusselator1D(std::size_t n = default_points) : n_(n) {
    if (n == 0) throw std::invalid_argument("brusselator_1d needs at least one grid point");
    const double dx = 1.0 / static_cast<double>(n + 1);
    inverse_dx2_ = 1.0 / (dx * dx);
  }

  std::size_t state_size() const { return 2 * n_; }
  std::size_t param_size() const { return 3; }
  std::size_t points() const { return n_; }

  // u0 ... u{n-1}, v0 ... v{n-1}: grid indices from 0, as fields will be indexed.
  std::vector<std::string> state_names() const {
    std::vector<std::string> names;
    names.reserve(2 * n_);
    for (const char* field : {"u", "v"})
      for (std::size_t i = 0; i < n_; ++i) names.push_back(field + std::to_string(i));
    return names;
  }

  std::vector<double> default_initial() const {
    std::vector<double> y(2 * n_, 3.0);
    for (std::size_t i = 0; i < n_; ++i)
      y[i] = 1.0 + std::sin(2.0 * std::numbers::pi * static_cast<double>(i + 1) / double(n_ + 1));
    return y;
  }

  template <class T>
  void operator()(T, const T* y, const T* p, T* dydt) const {
    const T* u = y;
    const T* v = y + n_;
    const T &a = p[0], &b = p[1];
    const T c = p[2] * T(inverse_dx2_), v_end = b / a;
    for (std::size_t i = 0; i < n_; ++i) {
      const T& u_left = i > 0 ? u[i - 1] : a;
      const T& u_right = i + 1 < n_ ? u[i + 1] : a;
      const T& v_left = i > 0 ? v[i - 1] : v_end;
      const T& v_right = i + 1 < n_ ? v[i + 1] : v_end;
      const T uuv = u[i] * u[i] * v[i];
      dydt[i] = a + uuv - (b + T(1)) * u[i] + c * ((u_left - u[i]) + (u_right - u[i]));
      dydt[n_ + i] = b * u[i] - uuv + c * ((v_left - v[i]) + (v_right - v[i]));
    }
  }

  // lambdaᵀ df/dy and lambdaᵀ df/dp, one pass over the grid.
  void vjp(double, const double* y, const double* p, const double* lambda, double* vjp_y,
           double* vjp_p) const {
    const double* u = y;
    const double* v = y + n_;
    const double* lu = lambda;
    const double* lv = lambda + n_;
    const double a = p[0], b = p[1], c = p[2] * inverse_dx2_, v_end = b / a;
    double da = 0, db = 0, dc = 0;
    for (std::size_t i = 0; i < n_; ++i) {
      const bool left = i > 0, right = i + 1 < n_;
      const double u_left = left ? u[i - 1] : a, u_right = right ? u[i + 1] : a;
      const double v_left = left ? v[i - 1] : v_end, v_right = right ? v[i + 1] : v_end;
      const double uv2 = 2.0 * u[i] * v[i], uu = u[i] * u[i];
      // Diffusion couples i with its neighbours, whose lambdas arrive here.
      const double neighbours_u = (left ? lu[i - 1] : 0.0) + (right ? lu[i + 1] : 0.0);
      const double neighbours_v = (left ? lv[i - 1] : 0.0) + (right ? lv[i + 1] : 0.0);
      vjp_y[i] = lu[i] * (uv2 - (b + 1.0) - 2.0 * c) + lv[i] * (b - uv2) + c * neighbours_u;
      vjp_y[n_ + i] = (lu[i] - lv[i]) * uu - 2.0 * c * lv[i] + c * neighbours_v;
      // The boundary values A and B / A enter the end points' stencils.
      const double ends = double(!left) + double(!right);
      da += lu[i] * (1.0 + c * ends) - lv[i] * c * ends * v_end / a;
      db += -lu[i] * u[i] + lv[i] * (u[i] + c * ends / a);
      dc += lu[i] * ((u_left - u[i]) + (u_right - u[i])) + lv[i] * ((v_left - v[i]) + (v_right - v[i]));
    }
    if (vjp_p) {
      vjp_p[0] = da;
      vjp_p[1] = db;
      vjp_p[2] = dc * inverse_dx2_;
    }
  }

  // Row of u_i: u_{i-1}, u_i, u_{i+1}, v_i; row of v_i: u_i, v_{i-1}, v_i, v_{i+1}; then
  // the parameters every row reads (A and B at the ends only, but declared everywhere).
  SparsityPattern sparsity() const {
    SparsityPattern pattern;
    pattern.rows = 2 * n_;
    pattern.columns = 2 * n_ + 3;
    pattern.row_start.reserve(2 * n_ + 1);
    pattern.column_index.reserve(14 * n_);
    const auto push = [&](std::size_t j) { pattern.column_index.push_back(static_cast<std::uint32_t>(j)); };
    for (std::size_t field = 0; field < 2; ++field) {
      for (std::size_t i = 0; i < n_; ++i) {
        if (field == 1) push(i);
        const std::size_t offset = field * n_;
        if (i > 0) push(offset + i - 1);
        push(offset + i);
        if (i + 1 < n_) push(offset + i + 1);
        if (field == 0) push(n_ + i);
        for (std::size_t k = 0; k < 3; ++k) push(2 * n_ + k);
        pattern.row_start.push_back(pattern.column_index.size());
      }
    }
    return pattern;
  }

 private:
  std::size_t n_;
  double inverse_dx2_;
};

}  // namespace backsweep::models
