#pragma once
// A fit config's DataFit, whichever model the config names, behind one interface: the
// engine's instantiations for each model kind compile once (engine_of/fit_engine.cpp)
// instead of once in each fit command.
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "adjoint/gradient_problem.hpp"
#include "apps/config_fit.hpp"
#include "apps/error_report.hpp"
#include "fit/data_fit.hpp"
#include "io/outputs/fit_output.hpp"

namespace backsweep::apps {

// The config's misfit in scaled parameters, with its gradient, Fisher information,
// predictions and trajectories (see DataFit). The config must outlive it.
class FitEngine {
 public:
  virtual ~FitEngine() = default;
  // A copy with its own state (a fit keeps the profiled sigma between evaluations).
  virtual std::unique_ptr<FitEngine> clone() const = 0;
  virtual double evaluate(const std::vector<double>& theta, std::vector<double>& gradient,
                          std::string& failure) = 0;
  virtual bool fisher(const std::vector<double>& theta, Eigen::MatrixXd& information,
                      std::vector<double>& predictions, std::string& failure) = 0;
  virtual bool predict(const std::vector<double>& theta, std::vector<double>& predictions,
                       std::string& failure) const = 0;
  // Per measurement: the prediction, its term of the objective and its residual.
  virtual bool predict_rows(const std::vector<double>& theta, std::vector<double>& rows,
                            std::string& failure) const = 0;
  // Each experiment's observables, and its states unless on a grid, at the output times
  // (or 200 even times), into report.trajectories.
  virtual bool trajectories(const std::vector<double>& theta, FitReport& report, std::string& failure) const = 0;
  virtual const std::vector<double>& sigmas() const = 0;
  virtual const std::vector<double>& profiled_sigma() const = 0;
  virtual const std::optional<OptionRefusal>& refused() const = 0;
  virtual const std::string& invalid_options() const = 0;
  virtual const std::optional<FitSolveFailure>& last_failure() const = 0;
  virtual const std::vector<std::optional<GrowthReport>>& monitors() const = 0;
  // DataFit::adjoint_observer: (experiment, t, lambda) on the way back; empty to stop.
  virtual void observe_adjoint(std::function<void(std::size_t, double, const double*)> observer) = 0;
  // DataFit::spread_experiments: off for a start that runs on one rank of several.
  virtual void spread_experiments(bool spread) = 0;
  // DataFit::experiment_loop: this rank's experiments, `at_once` at a time (backend omp).
  virtual void run_experiments(std::function<void(std::size_t, const std::function<void(std::size_t)>&)> loop,
                               std::size_t at_once) = 0;
};

// A failed solve, its experiment and state named.
std::string describe_failure(const FitConfig& config, const FitSolveFailure& failure);

std::unique_ptr<FitEngine> make_fit_engine(const FitConfig& config, const Scaled& scaled);

// Where every start failed: a refused option is bad input, the rest a failed run (said
// in `report`).
int all_starts_failed(const FitConfig& config, const std::vector<std::unique_ptr<FitEngine>>& fits,
                      ErrorReport& report);

// The growth monitor of each experiment's gradient at the fit (x, scaled space) into the
// report, and a warning for each experiment whose verdict is not stable; false (and
// `failure`) where a gradient failed there.
bool report_monitors(const FitEngine& fit, const std::vector<double>& x, FitReport& report, std::string& failure);

}  // namespace backsweep::apps
