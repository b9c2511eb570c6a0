#include "apps/fit_command.hpp"

#include <algorithm>
#include <cmath>
#include <iostream>

#include <nlohmann/json.hpp>

#include "apps/config_fit.hpp"
#include "apps/config_fit_engine.hpp"
#include "apps/error_report.hpp"
#include "apps/exit_codes.hpp"
#include "apps/load_config.hpp"
#include "apps/parallel_members.hpp"
#include "apps/petab_commands.hpp"
#include "apps/command_io.hpp"
#include "apps/run_record.hpp"
#include "fit/parameter_fit.hpp"
#include "io/config/backends.hpp"
#include "platform/interrupt.hpp"
#include "platform/ranks.hpp"
#include "solvers/context.hpp"

namespace backsweep::apps {

namespace {

// H (scaled space) by differences of the exact gradient of f, symmetrized: central ones,
// one-sided at a bound of the box [lower, upper] (outside it f may not exist).
bool hessian(const FitObjective& f, const std::vector<double>& theta, const std::vector<double>& lower,
             const std::vector<double>& upper, Eigen::MatrixXd& h, std::string& failure) {
  const std::size_t q = theta.size();
  h.resize(Eigen::Index(q), Eigen::Index(q));
  std::vector<double> x = theta, up(q), down(q);
  for (std::size_t i = 0; i < q; ++i) {
    const double step = 1e-4 * std::max(1.0, std::abs(theta[i]));
    const double high = std::min(theta[i] + step, upper[i]), low = std::max(theta[i] - step, lower[i]);
    x[i] = high;
    const bool ok = std::isfinite(f(x, up));
    x[i] = low;
    const bool also = std::isfinite(f(x, down));
    x[i] = theta[i];
    if (!ok || !also || !(high > low)) {
      failure = "the objective's Hessian at the optimum: a solve next to it failed";
      return false;
    }
    for (std::size_t j = 0; j < q; ++j) h(Eigen::Index(j), Eigen::Index(i)) = (up[j] - down[j]) / (high - low);
  }
  h = (0.5 * (h + h.transpose())).eval();
  return true;
}

}  // namespace

int fit_model(const FitConfig& config, CommandIO& io, const FitExtras& extras) {
  const SimulateConfig& sim = config.simulate;
  const Scaled scaled = scaled_parameters(config);
  const std::unique_ptr<FitEngine> fit = make_fit_engine(config, scaled);
  const bool parallel = find_backend(sim.backend)->parallel_runs;
  std::string plan = std::to_string(config.optimizer.starts) + " start(s)" + (parallel ? " in parallel (omp)" : "");
  if (ranks::count() > 1) {
    io.split = spreads_starts(config.optimizer.starts) ? "starts" : "experiments";
    plan += ", " + io.split + " spread over " + std::to_string(ranks::count()) + " ranks";
  }
  print_fit_plan(config, scaled, "parameters", plan);

  // A fit a start: a fit keeps state between evaluations (the profiled sigma), and with
  // backend omp the starts run at once (one start: its experiments). Each start's result
  // is the serial one.
  std::vector<std::unique_ptr<FitEngine>> fits;
  for (std::size_t s = 0; s < config.optimizer.starts; ++s) {
    fits.push_back(fit->clone());
    fits.back()->spread_experiments(!spreads_starts(config.optimizer.starts));  // one or the other
    if (config.optimizer.starts > 1) fits.back()->run_experiments(nullptr, 1);  // the starts take the threads
  }
  const StopRequest stop = this_threads_stop_request();  // Ctrl-C (the Python module), seen by every start
  const auto objective = [&](FitEngine& engine) -> FitObjective {
    return [&engine, &extras, stop](const std::vector<double>& theta, std::vector<double>& gradient) {
      if (stop.requested()) return double(NAN);  // every start ends soon
      std::string failure;
      const double value = engine.evaluate(theta, gradient, failure);
      if (!extras.penalty || !std::isfinite(value)) return value;
      std::vector<double> slope(gradient.size(), 0.0);
      const double penalty = extras.penalty(theta, slope);
      for (std::size_t i = 0; i < gradient.size(); ++i) gradient[i] += slope[i];
      return value + penalty;
    };
  };
  const ParameterFit result = fit_parameters(
      [&](std::size_t s) -> FitObjective {
        return objective(*fits[s]);
      },
      [&](const std::vector<double>& theta, Eigen::MatrixXd& information, std::vector<double>& predictions,
          std::string& failure) {
        if (stop.requested()) return false;
        if (!extras.hessian_information) return fit->fisher(theta, information, predictions, failure);
        return hessian(objective(*fit), theta, scaled.lower, scaled.upper, information, failure) &&
               fit->predict(theta, predictions, failure);
      },
      scaled.parameters, scaled.lower, scaled.upper, config.optimizer, print_progress,
      [parallel](std::size_t count, const std::function<void(std::size_t)>& work) {
        // One start runs on this thread: its experiments take the threads, and its
        // exchanges between ranks stay on the thread that started MPI.
        for_each_member(count, parallel && count > 1, work);
      });
  stop.throw_if_requested();  // here, not in the starts: they may run on threads that must not throw
  if (result.failed_everywhere()) return all_starts_failed(config, fits, io.error);
  const StartResult& best = result.best();

  FitReport report = base_report(config, result.runs);
  report.predictions = result.predictions;
  std::string failure = result.failure;
  if (!failure.empty() || !fit->trajectories(best.x, report, failure) || !report_monitors(*fit, best.x, report, failure)) {
    report_error(io.error, sim.file, ": at the optimum: ", failure);
    return kExitRunFailed;
  }
  report.sigmas = fit->sigmas();
  if (config.estimate_sigma) report.estimated_sigma = fit->profiled_sigma();
  const ParameterErrors& errors = result.errors;
  if (!errors.identifiable)
    std::cerr << "warning: " << (extras.hessian_information ? "the objective's Hessian" : "the Fisher information")
              << " is singular: some parameters are not identifiable from these data\n";
  report.covariance.assign(errors.covariance.data(), errors.covariance.data() + errors.covariance.size());

  report_parameters(config, scaled, best.x, errors.standard_errors, false, report);
  io.text() << "fit: objective " << best.objective << " (" << best.reason << ")\n";
  print_parameters(report, true, io);
  print_estimated_sigma(config, fit->profiled_sigma(), io);
  warn_unless_converged(best);
  if (io.writes_outputs()) try {
    OutputSet outputs(sim.output_dir);
    write_fit_files(report, outputs.staging().string(), io.run);
    if (extras.write_files) extras.write_files(outputs.staging().string(), best.x);
    commit_outputs(outputs, "fit", io.run);
  } catch (const std::exception& error) {
    report_error(io.error, error.what());
    return kExitRunFailed;
  }
  nlohmann::json out = fit_json(config, report, fit->profiled_sigma());
  if (extras.conclude) extras.conclude(out, best.x);
  io.finish(std::move(out));
  return kExitOk;
}

int run_fit(const ConfigFile& file, CommandIO& io) {
  if (file.petab) return run_petab_fit(file, io);
  auto loaded = load_config(io.error, fit_config, file);
  if (!loaded) return kExitBadInput;
  io.use_given_fields(loaded->simulate);  // a ConfigError of its own (the Python module's arrays)
  Context context;  // what the fit's gradients draw memory from
  loaded->simulate.integrate.context = &context;
  if (estimates_field(*loaded)) return run_field_fit(*loaded, io);
  return fit_model(*loaded, io);
}

}  // namespace backsweep::apps
