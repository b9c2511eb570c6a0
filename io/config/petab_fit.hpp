#pragma once
// A PEtab problem as a fit: its SBML model with the parameter table's extra parameters,
// an experiment per simulation condition (format 1) or experiment (format 2), and an
// observable per distinct (observable, overrides) of the measurement rows, its formula
// and noise formula written with the row's placeholders in place, its transformation and
// noise distribution. Parameters a condition maps to others become aliases. A
// pre-equilibration condition (format 1) or period at -inf (format 2) is an experiment of
// its own, which the measured one starts from (FitExperimentConfig::preequilibration).
//
// Measurements at time inf are of the steady state the experiment settles to. A later
// period's changes are events at its start; a parameter it changes becomes a state that
// holds it (io/config/petab_held_parameters.hpp).
#include <cstddef>
#include <optional>
#include <vector>

#include "fit/parameter_prior.hpp"
#include "io/config/fit_spec.hpp"
#include "io/config/petab_problem.hpp"

namespace backsweep {

struct PetabFit {
  FitSpec fit;
  std::vector<std::size_t> rows;  // fit.measurements[k] is the problem's measurements[rows[k]]
  std::vector<std::optional<ParameterPrior>> priors;  // per estimated parameter (fit.parameters)
};

// ConfigError at the file, row and column (or the SBML element) on any problem.
PetabFit petab_fit_spec(const PetabProblem& problem);

}  // namespace backsweep
