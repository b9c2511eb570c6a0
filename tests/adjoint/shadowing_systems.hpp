#pragma once
// The systems and objectives the shadowing tests share.
#include <cmath>
#include <cstddef>

namespace backsweep::test {

// x'' + c x' + x = cos(t): after the transient x = sin(t) / c, so <x^2> = 1 / (2 c^2).
struct ForcedOscillator {
  static constexpr std::size_t n_state = 2, n_param = 1;
  template <class T>
  void operator()(T t, const T* y, const T* p, T* dydt) const {
    using std::cos;
    dydt[0] = y[1];
    dydt[1] = -y[0] - p[0] * y[1] + cos(t);
  }
};

struct Lorenz96 {  // N = 40, forcing F
  static constexpr std::size_t n_state = 40, n_param = 1;
  template <class T>
  void operator()(T, const T* x, const T* p, T* dxdt) const {
    for (std::size_t i = 0; i < 40; ++i) dxdt[i] = (x[(i + 1) % 40] - x[(i + 38) % 40]) * x[(i + 39) % 40] - x[i] + p[0];
  }
};

struct Square {  // J = y_k^2
  std::size_t k;
  template <class T>
  T operator()(T, const T* y, const T*) const {
    return y[k] * y[k];
  }
};

struct Coordinate {  // J = y_k
  std::size_t k;
  template <class T>
  T operator()(T, const T* y, const T*) const {
    return y[k];
  }
};

}  // namespace backsweep::test
