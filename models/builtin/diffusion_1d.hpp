#pragma once
// 1-D diffusion with decay, u_t = D u_xx - k u on (0, 1), u = 0 at both ends, by central
// differences on n interior points x_i = (i + 1) dx, dx = 1 / (n + 1):
//   dy_i/dt = D (y_{i-1} - 2 y_i + y_{i+1}) / dx^2 - k y_i,   y_{-1} = y_n = 0.
// Parameters (D, k), defaults (1, 0.5). Its size is chosen at run time, and it declares
// its tridiagonal sparsity, so it is the test and benchmark case of sparse Jacobians
// (three colours for any n). Not in the registry: the command line has no way to give n.
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <numbers>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "platform/host_device.hpp"
#include "models/sparsity.hpp"

namespace backsweep::models {

class Diffusion1D {
 public:
  static constexpr std::string_view name = "diffusion_1d";
  static constexpr std::array<std::string_view, 2> param_names{"D", "k"};
  static constexpr std::array<double, 2> default_params{1.0, 0.5};

  // Throws std::invalid_argument for n = 0.
  explicit Diffusion1D(std::size_t n) : n_(n) {
    if (n == 0) throw std::invalid_argument("Diffusion1D needs at least one interior point");
    const double dx = 1.0 / static_cast<double>(n + 1);
    inverse_dx2_ = 1.0 / (dx * dx);
  }

  std::size_t state_size() const { return n_; }
  std::size_t param_size() const { return 2; }
  double dx() const { return 1.0 / static_cast<double>(n_ + 1); }

  // The stencil is written as two flux differences, (y_{i-1} - y_i) + (y_{i+1} - y_i):
  // the same sum as y_{i-1} - 2 y_i + y_{i+1} without a constant, whose Dual product
  // would cost a multiply per lane on every point.
  template <class T>
  BACKSWEEP_HOST_DEVICE void operator()(T, const T* y, const T* p, T* dydt) const {
    const T c = p[0] * T(inverse_dx2_), k = p[1];
    const std::size_t last = n_ - 1;
    if (n_ == 1) {
      dydt[0] = c * (-y[0] - y[0]) - k * y[0];
      return;
    }
    dydt[0] = c * ((y[1] - y[0]) - y[0]) - k * y[0];
    for (std::size_t i = 1; i < last; ++i)
      dydt[i] = c * ((y[i - 1] - y[i]) + (y[i + 1] - y[i])) - k * y[i];
    dydt[last] = c * ((y[last - 1] - y[last]) - y[last]) - k * y[last];
  }

  // Row i: y_{i-1}, y_i, y_{i+1} (those that exist), then D and k.
  SparsityPattern sparsity() const {
    SparsityPattern pattern;
    pattern.rows = n_;
    pattern.columns = n_ + 2;
    pattern.row_start.reserve(n_ + 1);
    pattern.column_index.reserve(5 * n_);
    const auto column = [](std::size_t j) { return static_cast<std::uint32_t>(j); };
    for (std::size_t i = 0; i < n_; ++i) {
      if (i > 0) pattern.column_index.push_back(column(i - 1));
      pattern.column_index.push_back(column(i));
      if (i + 1 < n_) pattern.column_index.push_back(column(i + 1));
      pattern.column_index.push_back(column(n_));
      pattern.column_index.push_back(column(n_ + 1));
      pattern.row_start.push_back(pattern.column_index.size());
    }
    return pattern;
  }

  // y_i = sin(pi x_i): the slowest mode, an eigenvector of the discrete Laplacian.
  std::vector<double> default_initial() const {
    std::vector<double> y(n_);
    for (std::size_t i = 0; i < n_; ++i) y[i] = std::sin(std::numbers::pi * x(i));
    return y;
  }

  // The exact solution of these ODEs (not of the PDE) from default_initial() at time 0:
  // the mode decays at D * 4 sin^2(pi dx / 2) / dx^2 + k. The reference for solver tests.
  std::vector<double> exact(double t, const double* p) const {
    const double h = dx(), s = std::sin(std::numbers::pi * h / 2.0);
    const double rate = p[0] * 4.0 * s * s / (h * h) + p[1];
    std::vector<double> y = default_initial();
    for (double& yi : y) yi *= std::exp(-rate * t);
    return y;
  }

 private:
  double x(std::size_t i) const { return static_cast<double>(i + 1) * dx(); }

  std::size_t n_;
  double inverse_dx2_;
};

}  // namespace backsweep::models
