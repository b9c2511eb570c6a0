#pragma once
#include "apps/command_io.hpp"
#include "io/config/config_file.hpp"

namespace backsweep::apps {

// `backsweep simulate CONFIG [--json]`: integrates the configured model and writes
// <output.dir>/trajectory.csv and trajectory.h5. Returns the process exit code.
int run_simulate(const ConfigFile& file, CommandIO& io);

}  // namespace backsweep::apps
