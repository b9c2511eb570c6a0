#pragma once
// Lotka-Volterra predator-prey: x' = alpha x - beta x y, y' = delta x y - gamma y,
// defaults (alpha, beta, gamma, delta) = (1.5, 1, 3, 1).
#include <array>
#include <cstddef>
#include <string_view>

#include "platform/host_device.hpp"

namespace backsweep::models {

struct LotkaVolterra {
  static constexpr std::size_t n_state = 2, n_param = 4;
  static constexpr std::string_view name = "lotka_volterra";
  static constexpr std::array<std::string_view, 2> state_names{"x", "y"};
  static constexpr std::array<std::string_view, 4> param_names{"alpha", "beta", "gamma",
                                                               "delta"};
  static constexpr std::array<double, 4> default_params{1.5, 1.0, 3.0, 1.0};
  static constexpr std::array<double, 2> default_initial{1.0, 1.0};

  template <class T>
  BACKSWEEP_HOST_DEVICE void operator()(T, const T* y, const T* p, T* dydt) const {
    dydt[0] = p[0] * y[0] - p[1] * y[0] * y[1];
    dydt[1] = p[3] * y[0] * y[1] - p[2] * y[1];
  }
};

}  // namespace backsweep::models
