#pragma once
// The commands on a PEtab problem (ConfigFile::petab): `simulate` prints its llh and chi2
// and writes simulations.tsv; `gradient` prints the llh and the gradient of its negative
// by each estimated parameter, on its scale and in linear space.
#include "apps/command_io.hpp"
#include "io/config/config_file.hpp"

namespace backsweep::apps {

int run_petab_simulate(const ConfigFile& file, CommandIO& io);
int run_petab_gradient(const ConfigFile& file, CommandIO& io);

}  // namespace backsweep::apps
