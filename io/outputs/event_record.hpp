#pragma once
// The events a run took, as outputs report them: by name, in declared order, the times
// each happened at (those in [t0, t1]; a dose scheduled past the end did not; for events
// at moving times, those the last run found).
#include <string>
#include <vector>

#include "solvers/integrate_options.hpp"

namespace backsweep {

struct EventRecord {
  std::string name;
  std::vector<double> times;
  bool moving = false;  // its time was found by the run (at an expression, or when)
};

std::vector<EventRecord> event_records(const IntegrateOptions& options);

}  // namespace backsweep
