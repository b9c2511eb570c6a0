#pragma once
#include <string>

#include "apps/command_io.hpp"
#include "io/config/config_file.hpp"

namespace backsweep::apps {

// `backsweep fit CONFIG [--json]`: maximum-likelihood parameters from measurements,
// multi-start L-BFGS-B with exact gradients, standard errors from the Fisher
// information. Returns the process exit code.
int run_fit(const ConfigFile& file, CommandIO& io);

// `backsweep gradient` on a fit config: the negative log-likelihood and its gradient
// with respect to the estimated parameters, in scaled and linear space.
int run_fit_gradient(const ConfigFile& file, CommandIO& io);

}  // namespace backsweep::apps
