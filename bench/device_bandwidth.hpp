#pragma once
// What the backend's kernel benchmarks measure bandwidth against: a STREAM triad run on
// the same backend, and under CUDA the device's peak from its memory clock and bus width.
#include <algorithm>
#include <cstddef>

#include "gpu/thrust_algebra.hpp"

namespace backsweep::bench {

struct Triad {
  double* a;
  const double *b, *c;
  BACKSWEEP_HOST_DEVICE void operator()(std::size_t i) const { a[i] = b[i] + 3.0 * c[i]; }
};

// Arrays for a triad by STREAM's rule (well beyond the last-level cache: at least 2^24
// values), and `min_values` at least.
struct TriadArrays {
  explicit TriadArrays(std::size_t min_values)
      : n(std::max<std::size_t>(min_values, std::size_t(1) << 24)), a(n), b(n, 1.0), c(n, 2.0) {}
  void run() { gpu::ThrustAlgebra::for_each(n, Triad{a.data(), b.data(), c.data()}); }
  double bytes() const { return 24.0 * double(n); }
  std::size_t n;
  gpu::ThrustAlgebra::vector<double> a, b, c;
};

// Peak memory bandwidth in GB/s from the device's clock and bus width (0 when unknown).
inline double peak_bandwidth() {
#if BACKSWEEP_THRUST_CUDA
  int clock_khz = 0, bus_bits = 0;
  cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, 0);
  cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, 0);
  return 2.0 * clock_khz * 1e3 * (bus_bits / 8.0) / 1e9;
#else
  return 0.0;
#endif
}

}  // namespace backsweep::bench
