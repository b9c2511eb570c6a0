#pragma once
// Damped harmonic oscillator x'' + 2 zeta omega x' + omega^2 x = 0, state (x, v),
// defaults omega = 1, zeta = 0.1. `exact` gives the closed-form solution used as the
// reference in solver tests.
#include <array>
#include <cmath>
#include <cstddef>
#include <string_view>

#include "platform/host_device.hpp"

namespace backsweep::models {

struct HarmonicOscillator {
  static constexpr std::size_t n_state = 2, n_param = 2;
  static constexpr std::string_view name = "harmonic_oscillator";
  static constexpr std::array<std::string_view, 2> state_names{"x", "v"};
  static constexpr std::array<std::string_view, 2> param_names{"omega", "zeta"};
  static constexpr std::array<double, 2> default_params{1.0, 0.1};
  static constexpr std::array<double, 2> default_initial{1.0, 0.0};

  template <class T>
  BACKSWEEP_HOST_DEVICE void operator()(T, const T* y, const T* p, T* dydt) const {
    dydt[0] = y[1];
    dydt[1] = -T(2) * p[1] * p[0] * y[1] - p[0] * p[0] * y[0];
  }

  // Closed-form state at time t from y0 at time 0, for the underdamped case
  // 0 <= zeta < 1 (the defaults). Templated so tests can use long double.
  template <class R>
  static std::array<R, 2> exact(R t, const R* y0, const R* p) {
    using std::cos, std::exp, std::sin, std::sqrt;
    const R omega = p[0], zeta = p[1];
    const R decay = zeta * omega, omega_d = omega * sqrt(R(1) - zeta * zeta);
    const R a = y0[0], b = (y0[1] + decay * y0[0]) / omega_d;
    const R e = exp(-decay * t), c = cos(omega_d * t), s = sin(omega_d * t);
    const R x = e * (a * c + b * s);
    const R v = -decay * x + e * omega_d * (-a * s + b * c);
    return {x, v};
  }
};

}  // namespace backsweep::models
