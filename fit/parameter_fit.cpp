#include "fit/parameter_fit.hpp"

#include <cmath>

namespace backsweep {

bool ParameterFit::failed_everywhere() const { return !std::isfinite(best().objective); }

ParameterFit fit_parameters(const std::function<FitObjective(std::size_t)>& objective_of, const FisherAt& fisher,
                            const std::vector<EstimatedParameter>& parameters, const std::vector<double>& lower,
                            const std::vector<double>& upper, const OptimizerOptions& options,
                            const FitProgress& progress, const StartLoop& for_each_start) {
  ParameterFit fit;
  fit.runs = minimize_multistart(objective_of, lower, upper, options, progress, for_each_start);
  if (fit.failed_everywhere()) return fit;
  const std::vector<double>& x = fit.best().x;
  Eigen::MatrixXd information;
  if (fisher(x, information, fit.predictions, fit.failure)) fit.errors = standard_errors(information, parameters, x);
  return fit;
}

}  // namespace backsweep
