#pragma once
// Measurements for a fit, from CSV in the PEtab spirit: a header naming the columns
// observable, time, value, sigma (optional when sigma is estimated) and experiment
// (optional), in any order, then one row per measurement. Every problem is a ConfigError
// naming the file, the line and column, and the column's name.
#include <string>
#include <vector>

#include "fit/measurement.hpp"

namespace backsweep {

struct MeasurementRules {
  std::vector<std::string> observables, experiments;  // the known names
  double t0 = 0.0, t1 = 0.0;                          // times must lie in [t0, t1]
  bool sigma_required = true;
};

// Rows in file order; within each experiment the times must not decrease.
std::vector<Measurement> read_measurements_csv(const std::string& path,
                                               const MeasurementRules& rules);

}  // namespace backsweep
