#pragma once
// OpenMpAlgebra: the CPU algebra (host vectors, the same storage) whose element-wise loops
// over long vectors run on OpenMP threads. Element-wise results do not depend on which
// thread computes them, and sums and searches stay serial, in CpuAlgebra's order, so
// every result is bitwise CpuAlgebra's on any number of threads. For the stage
// combinations of grid models, whose right-hand sides already run on every thread
// (backend omp). Compile with -fopenmp (without it the loops run serially).
#include <cstddef>
#include <vector>

#include "solvers/algebra.hpp"

namespace backsweep {

struct OpenMpAlgebra {
  static constexpr bool host_vectors = true;
  template <class T>
  using vector = CpuAlgebra::vector<T>;
  // Checkpoint slots mapped by the threads that first write them: the pool's populating
  // thread (recycled_memory.hpp) would take a core from the team, whose barriers then
  // wait on it (a store-all forward sweep ran 2.3x slower with it on two cores).
  template <class T>
  using storage = std::vector<T, DefaultInitAllocator<T>>;

  // Below this many components a loop stays in the calling thread: waking the team costs
  // more than the loop.
  static constexpr std::size_t kParallelFrom = std::size_t(1) << 14;

  template <class Operation>
  static void for_each(std::size_t n, Operation&& op) {
#pragma omp parallel for simd schedule(static) if (n >= kParallelFrom)
    for (std::size_t i = 0; i < n; ++i) op(i);
  }
  template <class Term>
  static double sum(std::size_t n, Term&& term) {
    return CpuAlgebra::sum(n, term);
  }
  template <class Predicate>
  static std::size_t first_index(std::size_t n, Predicate&& predicate) {
    return CpuAlgebra::first_index(n, predicate);
  }
};

static_assert(Algebra<OpenMpAlgebra>);

}  // namespace backsweep
