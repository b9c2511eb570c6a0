#pragma once
// Van der Pol oscillator x'' - mu (1 - x^2) x' + x = 0 as a first-order system; mu = 1.
#include <array>
#include <cstddef>
#include <string_view>

#include "platform/host_device.hpp"

namespace backsweep::models {

struct VanDerPol {
  static constexpr std::size_t n_state = 2, n_param = 1;
  static constexpr std::string_view name = "van_der_pol";
  static constexpr std::array<std::string_view, 2> state_names{"x", "y"};
  static constexpr std::array<std::string_view, 1> param_names{"mu"};
  static constexpr std::array<double, 1> default_params{1.0};
  static constexpr std::array<double, 2> default_initial{2.0, 0.0};

  template <class T>
  BACKSWEEP_HOST_DEVICE void operator()(T, const T* y, const T* p, T* dydt) const {
    dydt[0] = y[1];
    dydt[1] = p[0] * (T(1) - y[0] * y[0]) * y[1] - y[0];
  }
};

}  // namespace backsweep::models
