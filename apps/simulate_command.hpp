#pragma once
#include <string>

namespace backsweep::apps {

// `backsweep simulate CONFIG [--json]`: integrates the configured model and writes
// <output.dir>/trajectory.csv and trajectory.h5. Returns the process exit code.
int run_simulate(const std::string& config_path, bool json);

}  // namespace backsweep::apps
