#pragma once
// for_each_member(count, work): work(b) for b = 0 .. count-1, the members in parallel on
// Thrust's device system, one thread a member. On the OpenMP system that is a parallel
// loop over host threads; `work` runs host code and must not throw.
#include <cstddef>

#include <thrust/execution_policy.h>
#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>

namespace backsweep::gpu {

template <class Work>
void for_each_member(std::size_t count, const Work& work) {
  thrust::for_each_n(thrust::device, thrust::counting_iterator<std::size_t>(0), count, work);
}

}  // namespace backsweep::gpu
