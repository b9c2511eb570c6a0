#pragma once
// An estimated parameter's objective prior as its PEtab table row gives it: the named
// distribution with its parameters, truncated to the bounds in format 2, where a parameter
// without one has a uniform prior on its bounds (implicit: not the objective's).
#include <optional>

#include "fit/parameter_prior.hpp"
#include "io/config/petab_problem.hpp"

namespace backsweep {

// Nothing where the row has none (format 1, or unbounded); ConfigError at the row and
// column of an unknown name or parameters that are not its numbers.
std::optional<ParameterPrior> petab_prior(const PetabParameter& p, int format);

}  // namespace backsweep
