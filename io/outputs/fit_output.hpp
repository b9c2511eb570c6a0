#pragma once
// What `fit` writes into <dir>: fit.h5 (everything), fit_trajectories.csv (the fitted
// states and observables of each experiment at the output times) and fit_residuals.csv
// (each measurement with its prediction). All are complete before any is renamed into
// place.
#include <optional>
#include <string>
#include <vector>

#include "adjoint/growth_monitor.hpp"
#include "fit/measurement.hpp"
#include "fit/multistart.hpp"
#include "io/outputs/named_field.hpp"
#include "platform/run_info.hpp"

namespace backsweep {

struct FitReport {
  std::string model, method, gradient_mode;
  std::vector<std::string> parameter_names, scales, state_names, observable_names,
      experiment_ids, observable_of_measurement;
  std::vector<double> values, standard_errors, lower, upper;  // linear space
  std::vector<double> estimated;                              // 1 or 0 per parameter
  std::vector<double> covariance;                             // scaled space, q x q
  double objective = 0.0;
  bool converged = false;
  std::string reason;
  MultistartResult starts;
  std::vector<Measurement> measurements;
  std::vector<double> predictions, sigmas;  // per measurement
  std::vector<double> estimated_sigma;      // per observable when the noise is estimated
  struct Trajectory {
    std::vector<double> times, states, observables;  // rows x states, rows x observables
  };
  std::vector<Trajectory> trajectories;  // per experiment
  // The growth monitor of each experiment's gradient at the fit (verdict and figures;
  // none for an experiment without measurements; empty where the fit reports none).
  std::vector<std::optional<GrowthReport>> monitors;
  // Estimated parameter fields, fitted (shaped like the grid), when the fit has any.
  std::vector<std::size_t> grid_shape;
  std::vector<NamedField> parameter_fields;
};

void write_fit_files(const FitReport& report, const std::string& dir, const RunInfo& run);

}  // namespace backsweep
