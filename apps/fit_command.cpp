#include "apps/fit_command.hpp"

#include <cmath>
#include <cstdio>
#include <iostream>

#include <nlohmann/json.hpp>

#include "apps/config_fit.hpp"
#include "apps/config_fit_engine.hpp"
#include "apps/error_report.hpp"
#include "apps/exit_codes.hpp"
#include "apps/json_number.hpp"
#include "apps/load_config.hpp"
#include "apps/parallel_members.hpp"
#include "apps/results_stream.hpp"
#include "apps/run_record.hpp"
#include "fit/standard_errors.hpp"

namespace backsweep::apps {

namespace {

int fit_model(const FitConfig& config, bool json) {
  const SimulateConfig& sim = config.simulate;
  const Scaled scaled = scaled_parameters(config);
  const GradientMode mode = config.gradient_mode;
  const std::unique_ptr<FitEngine> fit = make_fit_engine(config, scaled);
  std::cerr << "fit: " << scaled.parameters.size() << " parameters, "
            << config.measurements.size() << " measurements, " << config.experiments.size()
            << " experiment(s); gradients by the "
            << (mode == GradientMode::adjoint ? "discrete adjoint" : "forward tangent") << " of "
            << sim.method.name()
            << "; " << config.optimizer.starts << " start(s)"
            << (sim.backend == "omp" ? " in parallel (omp)" : "") << '\n';

  // A fit a start: a fit keeps state between evaluations (the profiled sigma), and with
  // backend omp the starts run at once. Each start's result is the serial one.
  std::vector<std::unique_ptr<FitEngine>> fits;
  for (std::size_t s = 0; s < config.optimizer.starts; ++s) fits.push_back(fit->clone());
  const MultistartResult runs = minimize_multistart(
      [&](std::size_t s) -> FitObjective {
        return [&engine = *fits[s]](const std::vector<double>& theta, std::vector<double>& gradient) {
          std::string failure;
          return engine.evaluate(theta, gradient, failure);
        };
      },
      scaled.lower, scaled.upper, config.optimizer, print_progress,
      [parallel = sim.backend == "omp"](std::size_t count, const std::function<void(std::size_t)>& work) {
        for_each_member(count, parallel, work);
      });
  const StartResult& best = runs.starts[runs.best];
  if (!std::isfinite(best.objective)) return all_starts_failed(config, fits);

  FitReport report = base_report(config, runs);

  std::string failure;
  Eigen::MatrixXd information;
  if (!fit->fisher(best.x, information, report.predictions, failure) ||
      !fit->trajectories(best.x, report, failure)) {
    report_error(sim.file, ": at the optimum: ", failure);
    return kExitRunFailed;
  }
  report.sigmas = fit->sigmas();
  if (config.estimate_sigma) report.estimated_sigma = fit->profiled_sigma();
  const ParameterErrors errors = standard_errors(information, scaled.parameters, best.x);
  if (!errors.identifiable)
    std::cerr << "warning: the Fisher information is singular: some parameters are not "
                 "identifiable from these data\n";
  report.covariance.assign(errors.covariance.data(), errors.covariance.data() + errors.covariance.size());

  report_parameters(config, scaled, best.x, errors.standard_errors, false, report);
  results_stream(json) << "fit: objective " << best.objective << " (" << best.reason << ")\n";
  print_parameters(report, true, json);
  print_estimated_sigma(config, fit->profiled_sigma(), json);
  warn_unless_converged(best);
  try {
    OutputSet outputs(sim.output_dir);
    write_fit_files(report, outputs.staging().string());
    commit_outputs(outputs, "fit");
  } catch (const std::exception& error) {
    report_error(error.what());
    return kExitRunFailed;
  }
  if (json) {
    nlohmann::json starts = nlohmann::json::array();
    for (const StartResult& s : runs.starts)
      starts.push_back({{"objective", finite_or_null(s.objective)},
                        {"iterations", s.iterations},
                        {"evaluations", s.evaluations},
                        {"converged", s.converged},
                        {"reason", s.reason}});
    nlohmann::json out = {{"objective", best.objective},
                          {"converged", best.converged},
                          {"reason", best.reason},
                          {"gradient_mode", to_string(mode)},
                          {"parameters", parameters_json(report)},
                          {"starts", starts}};
    if (config.estimate_sigma) {
      nlohmann::json sigma = nlohmann::json::object();
      for (std::size_t o = 0; o < config.observables.size(); ++o)
        sigma[config.observables[o].name] = finite_or_null(fit->profiled_sigma()[o]);
      out["sigma"] = sigma;
    }
    std::cout << out.dump() << '\n';
  }
  return kExitOk;
}

}  // namespace

int run_fit(const std::string& config_path, bool json) {
  const auto loaded = load_config(load_fit_config, config_path);
  if (!loaded) return kExitBadInput;
  if (estimates_field(*loaded)) return fit_fields(*loaded, json);
  return fit_model(*loaded, json);
}

}  // namespace backsweep::apps
