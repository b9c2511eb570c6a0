#pragma once
// The commands on a PEtab problem (ConfigFile::petab): `simulate` prints its llh and chi2
// and writes simulations.tsv; `gradient` prints the llh and the gradient of its negative
// by each estimated parameter, on its scale and in linear space; `fit` fits them.
#include "apps/command_io.hpp"
#include "io/config/config_file.hpp"

namespace backsweep::apps {

int run_petab_simulate(const ConfigFile& file, CommandIO& io);
int run_petab_gradient(const ConfigFile& file, CommandIO& io);
// `fit`: the estimated parameters from multi-start L-BFGS-B (starts spread over the bounds
// on the parameters' scales), the objective with its priors; parameters.tsv (the
// parameter table with the estimates as nominal values) beside fit.h5.
int run_petab_fit(const ConfigFile& file, CommandIO& io);

}  // namespace backsweep::apps
