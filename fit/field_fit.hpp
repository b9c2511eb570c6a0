#pragma once
// A fit of parameter fields estimated point by point: L-BFGS-B from the prior fields on
// the misfit plus each field's regularisation (field_regularization.hpp). Many values
// and few data make it ill-posed without the penalty; one start, from the prior, since
// Latin-hypercube starts in 10^3-10^6 dimensions tell nothing.
#include <cstddef>
#include <vector>

#include "fit/estimated_parameter.hpp"
#include "fit/field_regularization.hpp"
#include "fit/multistart.hpp"
#include "models/grid.hpp"

namespace backsweep {

// An estimated field: its points are the optimiser's entries [first, first + grid points).
struct EstimatedField {
  std::size_t first = 0;
  FieldRegularization weights;
};

// The fields' regularisation at theta (scaled space), with its gradient added to
// `gradient`. Every field lives on `grid`; `parameters` says how each entry is scaled.
struct FieldPenalty {
  Grid grid;
  std::vector<EstimatedField> fields;
  std::vector<EstimatedParameter> parameters;
  double operator()(const std::vector<double>& theta, std::vector<double>& gradient) const;
};

// Minimises misfit + penalty from `prior` (scaled) in the box (a failed misfit, NaN, is
// not penalised: the line search backs off from it).
StartResult fit_fields(const FitObjective& misfit, const FieldPenalty& penalty, const std::vector<double>& prior,
                       const std::vector<double>& lower, const std::vector<double>& upper,
                       const OptimizerOptions& options, const FitProgress& progress);

}  // namespace backsweep
