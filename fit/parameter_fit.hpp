#pragma once
// A fit of parameters: L-BFGS-B from several starts (multistart.hpp), then the Fisher
// information, the covariance and the standard errors at the best point
// (standard_errors.hpp).
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "fit/estimated_parameter.hpp"
#include "fit/multistart.hpp"
#include "fit/standard_errors.hpp"

namespace backsweep {

// The Fisher information at theta (scaled space) and the predictions there; false, with
// the reason in `failure`, where the solve failed.
using FisherAt = std::function<bool(const std::vector<double>& theta, Eigen::MatrixXd& information,
                                    std::vector<double>& predictions, std::string& failure)>;

struct ParameterFit {
  MultistartResult runs;
  ParameterErrors errors;           // at the best start's point
  std::vector<double> predictions;  // there
  std::string failure;              // why the information failed there; empty if it did not
  const StartResult& best() const { return runs.starts[runs.best]; }
  bool failed_everywhere() const;   // no start reached a finite objective
};

// Starts as minimize_multistart's; the information is asked for once, at the best point,
// unless every start failed.
ParameterFit fit_parameters(const std::function<FitObjective(std::size_t)>& objective_of, const FisherAt& fisher,
                            const std::vector<EstimatedParameter>& parameters, const std::vector<double>& lower,
                            const std::vector<double>& upper, const OptimizerOptions& options,
                            const FitProgress& progress, const StartLoop& for_each_start);

}  // namespace backsweep
