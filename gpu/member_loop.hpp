#pragma once
// for_each_member(count, work): work(b) for b = 0 .. count-1, the members in parallel on
// Thrust's device system, one thread a member. On the OpenMP system that is a parallel
// loop over host threads; `work` runs host code and must not throw.
#include <cstddef>
#include <vector>

#include <thrust/execution_policy.h>
#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>

#include "gpu/system.hpp"

namespace BACKSWEEP_GPU_NAMESPACE {

// One member of an ensemble: its initial state and parameters.
struct EnsembleMember {
  std::vector<double> y0, p;
};

template <class Work>
void for_each_member(std::size_t count, const Work& work) {
#if THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_OMP
  // Members differ in cost (adaptive steps, failures): threads take the next member as they
  // finish, where Thrust's loop would give each thread a fixed share.
#pragma omp parallel for schedule(dynamic)
  for (std::size_t b = 0; b < count; ++b) work(b);
#else
  thrust::for_each_n(thrust::device, thrust::counting_iterator<std::size_t>(0), count, work);
#endif
}

}  // namespace BACKSWEEP_GPU_NAMESPACE
