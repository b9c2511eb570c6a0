#pragma once
// Robertson's stiff chemical kinetics (k1, k2, k3) = (0.04, 3e7, 1e4), y0 = (1, 0, 0).
// Explicit methods need tiny steps on it; it is here for the implicit solvers.
#include <array>
#include <cstddef>
#include <string_view>

#include "platform/host_device.hpp"

namespace backsweep::models {

struct Robertson {
  static constexpr std::size_t n_state = 3, n_param = 3;
  static constexpr std::string_view name = "robertson";
  static constexpr std::array<std::string_view, 3> state_names{"y1", "y2", "y3"};
  static constexpr std::array<std::string_view, 3> param_names{"k1", "k2", "k3"};
  static constexpr std::array<double, 3> default_params{0.04, 3.0e7, 1.0e4};
  static constexpr std::array<double, 3> default_initial{1.0, 0.0, 0.0};

  template <class T>
  BACKSWEEP_HOST_DEVICE void operator()(T, const T* y, const T* p, T* dydt) const {
    const T forward = p[0] * y[0], pair = p[1] * y[1] * y[1], back = p[2] * y[1] * y[2];
    dydt[0] = -forward + back;
    dydt[1] = forward - pair - back;
    dydt[2] = pair;
  }
};

}  // namespace backsweep::models
