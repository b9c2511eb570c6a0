#pragma once
// Lorenz-63: the classic chaotic convection model (sigma, rho, beta), defaults 10, 28, 8/3.
// It ships hand-written derivatives, checked against the Dual-derived ones in the tests.
#include <array>
#include <cstddef>
#include <string_view>

#include "platform/host_device.hpp"

namespace backsweep::models {

struct Lorenz63 {
  static constexpr std::size_t n_state = 3, n_param = 3;
  static constexpr std::string_view name = "lorenz63";
  static constexpr std::array<std::string_view, 3> state_names{"x", "y", "z"};
  static constexpr std::array<std::string_view, 3> param_names{"sigma", "rho", "beta"};
  static constexpr std::array<double, 3> default_params{10.0, 28.0, 8.0 / 3.0};
  static constexpr std::array<double, 3> default_initial{1.0, 1.0, 1.0};

  template <class T>
  BACKSWEEP_HOST_DEVICE void operator()(T, const T* y, const T* p, T* dydt) const {
    dydt[0] = p[0] * (y[1] - y[0]);
    dydt[1] = y[0] * (p[1] - y[2]) - y[1];
    dydt[2] = y[0] * y[1] - p[2] * y[2];
  }

  void jacobian(double, const double* y, const double* p, double* dfdy, double* dfdp) const {
    const double jy[9] = {-p[0], p[0], 0.0, p[1] - y[2], -1.0, -y[0], y[1], y[0], -p[2]};
    const double jp[9] = {y[1] - y[0], 0.0, 0.0, 0.0, y[0], 0.0, 0.0, 0.0, -y[2]};
    for (int i = 0; i < 9; ++i) {
      dfdy[i] = jy[i];
      dfdp[i] = jp[i];
    }
  }

  BACKSWEEP_HOST_DEVICE
  void vjp(double, const double* y, const double* p, const double* l, double* vjp_y,
           double* vjp_p) const {
    vjp_y[0] = -p[0] * l[0] + (p[1] - y[2]) * l[1] + y[1] * l[2];
    vjp_y[1] = p[0] * l[0] - l[1] + y[0] * l[2];
    vjp_y[2] = -y[0] * l[1] - p[2] * l[2];
    vjp_p[0] = (y[1] - y[0]) * l[0];
    vjp_p[1] = y[0] * l[1];
    vjp_p[2] = -y[2] * l[2];
  }
};

}  // namespace backsweep::models
