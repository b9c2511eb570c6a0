#pragma once
#include <cstddef>

namespace backsweep {

// One measurement of an observable in an experiment (indices into the fit's lists).
struct Measurement {
  std::size_t experiment = 0, observable = 0;
  double time = 0.0, value = 0.0, sigma = 0.0;  // sigma 0: none given
};

}  // namespace backsweep
