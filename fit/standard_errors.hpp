#pragma once
// Standard errors of estimated parameters from the Fisher information at the optimum.
#include <vector>

#include <Eigen/Dense>

#include "fit/estimated_parameter.hpp"

namespace backsweep {

struct ParameterErrors {
  // F^-1 in the optimiser's (scaled) space; NaN when F is not positive definite: then the
  // parameters are not identifiable from the data and their errors are unknown.
  Eigen::MatrixXd covariance;
  bool identifiable = false;
  // Per estimated parameter, in linear space (the delta method); NaN when not identifiable.
  std::vector<double> standard_errors;
};

// F is the Fisher information in scaled space at theta (scaled values).
ParameterErrors standard_errors(const Eigen::MatrixXd& information,
                                const std::vector<EstimatedParameter>& parameters,
                                const std::vector<double>& theta);

}  // namespace backsweep
