#pragma once
#include "apps/command_io.hpp"
#include "io/config/config_file.hpp"

namespace backsweep::apps {

// `backsweep lyapunov CONFIG [--json]`: the leading Lyapunov exponents of the config's
// model, their standard errors, the Kaplan-Yorke dimension and the convergence history.
// Returns the process exit code.
int run_lyapunov(ConfigFile file, CommandIO& io);

}  // namespace backsweep::apps
