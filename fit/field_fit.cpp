#include "fit/field_fit.hpp"

#include <algorithm>
#include <cmath>

namespace backsweep {

double FieldPenalty::operator()(const std::vector<double>& theta, std::vector<double>& gradient) const {
  double value = 0.0;
  const std::size_t n = grid.points();
  std::vector<double> k(n), dk(n);
  for (const EstimatedField& field : fields) {
    if (!field.weights.active()) continue;
    for (std::size_t j = 0; j < n; ++j) k[j] = parameters[field.first + j].to_value(theta[field.first + j]);
    std::fill(dk.begin(), dk.end(), 0.0);
    value += regularization(grid, field.weights, k.data(), dk.data());
    for (std::size_t j = 0; j < n; ++j)
      gradient[field.first + j] += dk[j] * parameters[field.first + j].slope(theta[field.first + j]);
  }
  return value;
}

StartResult fit_fields(const FitObjective& misfit, const FieldPenalty& penalty, const std::vector<double>& prior,
                       const std::vector<double>& lower, const std::vector<double>& upper,
                       const OptimizerOptions& options, const FitProgress& progress) {
  const FitObjective objective = [&](const std::vector<double>& theta, std::vector<double>& gradient) {
    const double value = misfit(theta, gradient);
    return std::isfinite(value) ? value + penalty(theta, gradient) : value;
  };
  return minimize_from(objective, prior, 0, lower, upper, options, progress);
}

}  // namespace backsweep
