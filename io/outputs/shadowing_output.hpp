#pragma once
// What `gradient` writes for gradient.mode = "shadowing": <dir>/gradient.h5 with the
// long-time average, its derivative by name with the error estimate, and how the run was
// cut (written to a temporary name and renamed into place).
#include <cstddef>
#include <string>
#include <vector>
#include "platform/run_info.hpp"

namespace backsweep {

struct ShadowingOutput {
  std::string model, method;
  std::string sweep;  // tangent or adjoint
  double objective = 0.0;  // the long-time average
  std::vector<std::string> parameter_names;
  std::vector<double> gradient, error;  // d<J>/dp and its standard error, by name
  // The shadowing direction's size per parameter (ShadowingResult's direction_*; the
  // tangent sweep's alone).
  std::vector<double> direction_median, direction_largest, direction_largest_at;
  std::size_t unstable = 0;             // directions shadowed
  std::string unstable_from;            // "config" or "lyapunov"
  std::vector<double> exponents;        // the spectrum the default came from
  std::size_t segments = 0, batches = 0, steps = 0;
  double segment_length = 0.0, spin_up = 0.0, seconds = 0.0;
};

// Layout: root attributes objective, model, method, mode ("shadowing"), sweep; /gradient/parameters
// and /gradient/error (attribute names); /diagnostics (attributes unstable, unstable_from,
// segments, segment_length, spin_up, batches, steps, seconds; dataset exponents);
// /diagnostics/direction (the tangent sweep's): datasets median, largest and largest_at by
// parameter (attribute names).
void write_shadowing_hdf5(const ShadowingOutput& output, const std::string& path, const RunInfo& run);

}  // namespace backsweep
