#include "fit/standard_errors.hpp"

#include <cmath>

namespace backsweep {

ParameterErrors standard_errors(const Eigen::MatrixXd& information,
                                const std::vector<EstimatedParameter>& parameters,
                                const std::vector<double>& theta) {
  const auto q = Eigen::Index(parameters.size());
  ParameterErrors errors;
  errors.covariance = Eigen::MatrixXd::Constant(q, q, NAN);
  const Eigen::LLT<Eigen::MatrixXd> cholesky(information);
  errors.identifiable = cholesky.info() == Eigen::Success;
  if (errors.identifiable) errors.covariance = cholesky.solve(Eigen::MatrixXd::Identity(q, q));
  for (Eigen::Index i = 0; i < q; ++i) {
    const auto k = std::size_t(i);
    // Delta method: from the scaled-space error to linear space.
    errors.standard_errors.push_back(std::sqrt(errors.covariance(i, i)) *
                                     parameters[k].slope(theta[k]));
  }
  return errors;
}

}  // namespace backsweep
