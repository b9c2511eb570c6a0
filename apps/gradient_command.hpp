#pragma once
#include "apps/command_io.hpp"
#include "io/config/config_file.hpp"

namespace backsweep::apps {

// `backsweep gradient CONFIG [--json]`: the objective of the config and its gradient with
// respect to the parameters (and the initial state), by the discrete adjoint or the
// forward tangent. Returns the process exit code.
int run_gradient(const ConfigFile& file, CommandIO& io);

}  // namespace backsweep::apps
