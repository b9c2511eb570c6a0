#pragma once
// What the backend tests and benchmarks share: Lorenz-63 ensembles (J = z(t1), and members
// whose initial states and parameters are spread by up to 10% around the classic ones),
// and a normwise relative difference.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <random>
#include <vector>

#include "gpu/member_loop.hpp"
#include "platform/host_device.hpp"

namespace backsweep::testing {

struct FinalZ {
  BACKSWEEP_EXEC_CHECK_DISABLE  // also instantiated with host-only scalars (a dependency tracer)
  template <class T>
  BACKSWEEP_HOST_DEVICE T operator()(const T* y, const T*) const {
    return y[2];
  }
};

inline std::vector<gpu::EnsembleMember> spread_lorenz_members(std::size_t count) {
  std::mt19937_64 random(7);
  std::uniform_real_distribution<double> jitter(-0.1, 0.1);
  std::vector<gpu::EnsembleMember> members(count);
  for (auto& member : members) {
    member.y0 = {1.0 + jitter(random), 1.0 + jitter(random), 1.0 + jitter(random)};
    member.p = {10.0 * (1 + jitter(random)), 28.0 * (1 + jitter(random)), 8.0 / 3.0 * (1 + jitter(random))};
  }
  return members;
}

// The largest difference relative to the largest magnitude of `expected`.
inline double relative_difference(const std::vector<double>& got, const std::vector<double>& expected) {
  double difference = 0.0, scale = 0.0;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    difference = std::max(difference, std::abs(got[i] - expected[i]));
    scale = std::max(scale, std::abs(expected[i]));
  }
  return scale > 0 ? difference / scale : difference;
}

}  // namespace backsweep::testing
