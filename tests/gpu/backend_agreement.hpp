#pragma once
// How the backend tests compare the Thrust backend with the CPU backend: bitwise on
// Thrust's OpenMP system (the same operations in the same order); under CUDA (fused
// multiply-adds) to 1e-10 relative, with the measured difference printed.
#include <doctest/doctest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "gpu/thrust_algebra.hpp"
#include "tests/gpu/backend_checks.hpp"

namespace backsweep::testing {

inline constexpr bool kBitwise = !BACKSWEEP_THRUST_CUDA;

inline void check_agreement(const std::vector<double>& got, const std::vector<double>& expected, const char* what) {
  REQUIRE(got.size() == expected.size());
  const double difference = relative_difference(got, expected);
  if (kBitwise) {
    CHECK_MESSAGE(got == expected, std::string(what) << ": differs by " << difference << " (relative)");
  } else {
    std::printf("%s: CUDA vs CPU, max relative difference %.2e\n", what, difference);
    CHECK_MESSAGE(difference <= 1e-10, std::string(what));
  }
}

// A backend vector's values, copied to the host.
template <class V>
std::vector<double> on_host(const V& values) {
  return std::vector<double>(values.begin(), values.end());
}

}  // namespace backsweep::testing
