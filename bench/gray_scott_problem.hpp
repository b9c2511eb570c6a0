#pragma once
// The Gray–Scott problem the backend benchmarks share: a patch of v in the middle of a
// side x side grid (u = 1 - 2v), and J = u + v at the centre point.
#include <cmath>
#include <cstddef>
#include <vector>

namespace backsweep::bench {

struct AtCentre {
  std::size_t u, v;
  template <class T>
  T operator()(const T* y, const T*) const {
    return y[u] + y[v];
  }
};

inline AtCentre at_centre(std::size_t side) {
  const std::size_t n = side * side, centre = n / 2 + side / 2;
  return {centre, n + centre};
}

// u, then v, each side x side.
inline std::vector<double> gray_scott_patch(std::size_t side) {
  const std::size_t n = side * side;
  std::vector<double> y0(2 * n);
  for (std::size_t i = 0; i < n; ++i) {
    const double v = 0.25 * std::exp(-std::pow(double(i % side) / double(side) - 0.5, 2) * 50.0 -
                                     std::pow(double(i / side) / double(side) - 0.5, 2) * 50.0);
    y0[n + i] = v;
    y0[i] = 1.0 - 2.0 * v;
  }
  return y0;
}

}  // namespace backsweep::bench
