#include <cfloat>
#include <cmath>
#include <cstddef>

#include "models/avx2_clone.hpp"
#include "solvers/vector_operations.hpp"

namespace backsweep {

// Counts rather than sums: integer counts vectorise, and no addition waits on the last.
BACKSWEEP_AVX2_CLONE
bool all_finite(std::size_t n, const double* x) {
  std::size_t special = 0;
#pragma omp simd reduction(+ : special)
  for (std::size_t i = 0; i < n; ++i) special += !(std::abs(x[i]) <= DBL_MAX);  // NaN compares false
  return special == 0;
}

}  // namespace backsweep
