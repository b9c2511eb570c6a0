#pragma once
// Lorenz-63 ensembles for the backend tests and benchmarks: J = z(t1), and members whose
// initial states and parameters are spread by up to 10% around the classic ones.
#include <cstddef>
#include <random>
#include <vector>

#include "gpu/member_loop.hpp"
#include "models/host_device.hpp"

namespace backsweep::testing {

struct FinalZ {
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

}  // namespace backsweep::testing
