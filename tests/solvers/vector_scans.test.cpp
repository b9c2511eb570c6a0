// The out-of-line scans of long host vectors give what the inline loops give short ones.
#include <doctest/doctest.h>

#include <cfloat>
#include <cmath>
#include <vector>

#include "solvers/vector_operations.hpp"

using namespace backsweep;

TEST_CASE("the first NaN or Inf of a long vector is found, wherever it is") {
  for (std::size_t n : {kLongVector, kLongVector + 3, std::size_t{100003}}) {
    std::vector<double> x(n);
    for (std::size_t i = 0; i < n; ++i) x[i] = (i % 3 == 0 ? -1.0 : 1.0) * std::ldexp(1.0, int(i % 2000) - 1000);
    x[n / 3] = DBL_MAX;
    x[n / 3 + 1] = -DBL_MAX;
    x[n / 3 + 2] = 4.9e-324;  // the least subnormal
    CHECK(all_finite(n, x.data()));
    CHECK(first_non_finite<CpuAlgebra>(n, x.data()) == n);
    for (const double special : {NAN, INFINITY, -INFINITY}) {
      for (const std::size_t at : {std::size_t{0}, n / 2, n - 1}) {  // the tail of a vectorised loop too
        const double kept = x[at];
        x[at] = special;
        CHECK_FALSE(all_finite(n, x.data()));
        CHECK(first_non_finite<CpuAlgebra>(n, x.data()) == at);
        x[at] = kept;
      }
    }
  }
}
