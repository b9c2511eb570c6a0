#include "apps/fit_command.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <span>

#include <nlohmann/json.hpp>

#include "apps/error_report.hpp"
#include "apps/exit_codes.hpp"
#include "apps/field_outputs.hpp"
#include "apps/json_number.hpp"
#include "apps/results_stream.hpp"
#include "apps/run_record.hpp"
#include "apps/load_config.hpp"
#include "apps/parallel_members.hpp"
#include "fit/data_fit.hpp"
#include "fit/standard_errors.hpp"
#include "io/config_objective.hpp"
#include "io/fit_config.hpp"
#include "io/fit_output.hpp"
#include "io/gradient_output.hpp"
#include "io/visit_model.hpp"
#include "solvers/solve.hpp"

namespace backsweep::apps {

const char* const kFitHelp = R"(Config keys read by fit, besides those of simulate (see docs/config.md):
  [[estimate]]   name, lower, upper (linear space), scale = lin | log10, estimate = true
                 (the nominal value, and the value of fixed ones, comes from [parameters]);
                 name a parameter field to estimate it point by point, from its prior
  [regularization.<field>] tikhonov, h1, tv (weights, 0), tv_epsilon (1e-3),
                 reference = "prior" | number: for an estimated parameter field
  [[observables]] name, formula (an expression of t, the states and the parameters)
  [data]         measurements = "file.csv": columns observable,time,value,sigma[,experiment]
                 (relative to the config file's folder)
  [[experiments]] id, initial = {x = 1.0}, parameters = {k = 2.0} (fixed overrides)
  [noise]        model = gaussian, sigma = data | estimate (profiled per observable)
  [optimizer]    method = lbfgsb, max_iterations (200), gradient_tolerance (1e-6),
                 starts (5, Latin hypercube in scaled space), seed (1),
                 gradient = auto | adjoint | tangent (auto: tangent when the states
                 and parameters number at most 8, else adjoint)
  [checkpointing] schedule, slots, memory, disk, storage: as for gradient
Prints a line per improving iteration, then the fitted parameters with standard errors
(--json: one JSON object on stdout), and writes <output.dir>/fit.h5,
fit_trajectories.csv and fit_residuals.csv.
Exit codes: 0 ok, 1 the run failed, 2 bad input.)";

namespace {

// The estimated parameters, their bounds in scaled space, and the nominal point; a
// parameter field is estimated point by point, one entry a point.
struct Scaled {
  std::vector<EstimatedParameter> parameters;
  std::vector<double> lower, upper, nominal;
  std::vector<std::size_t> config_index;  // into FitConfig::parameters
};

Scaled scaled_parameters(const FitConfig& config) {
  Scaled s;
  for (std::size_t i = 0; i < config.parameters.size(); ++i) {
    const FitParameter& p = config.parameters[i];
    if (!p.estimate) continue;
    for (std::size_t point = 0; point < p.points; ++point) {
      const EstimatedParameter e{p.index + point, p.log10};
      s.parameters.push_back(e);
      s.lower.push_back(e.to_scaled(p.lower));
      s.upper.push_back(e.to_scaled(p.upper));
      s.nominal.push_back(e.to_scaled(config.simulate.parameters[p.index + point]));
      s.config_index.push_back(i);
    }
  }
  return s;
}

// The regularisation of the estimated parameter fields at theta, with its gradient added
// to `gradient` (scaled space).
double field_regularization(const FitConfig& config, const Scaled& scaled, const std::vector<double>& theta,
                            std::vector<double>& gradient) {
  double value = 0.0;
  std::size_t first = 0;  // p's first entry in theta
  for (const FitParameter& p : config.parameters) {
    if (!p.estimate) continue;
    if (p.regularization.active()) {
      std::vector<double> k(p.points), dk(p.points, 0.0);
      for (std::size_t j = 0; j < p.points; ++j) k[j] = scaled.parameters[first + j].to_value(theta[first + j]);
      value += regularization(config.simulate.fields()->grid(), p.regularization, k.data(), dk.data());
      for (std::size_t j = 0; j < p.points; ++j)
        gradient[first + j] += dk[j] * scaled.parameters[first + j].slope(theta[first + j]);
    }
    first += p.points;
  }
  return value;
}

// Each experiment's parameters: the fixed ones at their nominal or overridden values.
std::vector<std::vector<double>> experiment_parameters(const FitConfig& config) {
  std::vector<std::vector<double>> parameters;
  for (const auto& e : config.experiments) parameters.push_back(e.parameters);
  return parameters;
}

template <Model M>
using ConfigFit = DataFit<M, ConfigObservables, ConfigExperimentInitial>;

template <Model M>
ConfigFit<M> make_fit(const M& model, const FitConfig& config, const Scaled& scaled) {
  const SimulateConfig& sim = config.simulate;
  IntegrateOptions integrate = sim.integrate;
  integrate.output_times.clear();
  return ConfigFit<M>(model, sim.method, integrate, ConfigObservables{&config},
                      config.observables.size(), ConfigExperimentInitial{&config},
                      experiment_parameters(config), config.measurements, scaled.parameters,
                      config.estimate_sigma, config.gradient_mode, config.checkpointing.options);
}

// Observables, and states unless on a grid, of each experiment at the output times (or 200
// even times).
template <Model M>
bool fitted_trajectories(const M& model, const FitConfig& config, const std::vector<double>& theta,
                         ConfigFit<M>& fit, FitReport& report, std::string& failure) {
  const bool states = !config.simulate.fields();
  const SimulateConfig& sim = config.simulate;
  IntegrateOptions options = sim.integrate;
  if (options.output_times.empty())
    for (int k = 1; k <= 200; ++k)
      options.output_times.push_back(options.t0 + (options.t1 - options.t0) * k / 200.0);
  for (std::size_t e = 0; e < config.experiments.size(); ++e) {
    FitReport::Trajectory trajectory;
    const std::vector<double> p = fit.parameters(e, theta);
    std::vector<double> y(sim.state_names.size());
    ConfigExperimentInitial{&config}(e, p.data(), y.data());
    const IntegrateResult solved =
        solve_forward(model, sim.method, y.data(), p.data(), options, [&](double t, const double* state) {
          trajectory.times.push_back(t);
          if (states) trajectory.states.insert(trajectory.states.end(), state, state + sim.state_names.size());
          for (std::size_t o = 0; o < config.observables.size(); ++o)
            trajectory.observables.push_back(ConfigObservables{&config}(o, t, state, p.data()));
        });
    if (!solved.ok()) {
      failure = solved.message;
      return false;
    }
    report.trajectories.push_back(std::move(trajectory));
  }
  return true;
}

// What every fit reports, from its starts' results.
FitReport base_report(const FitConfig& config, const MultistartResult& runs) {
  const SimulateConfig& sim = config.simulate;
  const StartResult& best = runs.starts[runs.best];
  FitReport report;
  report.model = sim.model;
  report.method = std::string(sim.method.name());
  report.gradient_mode = to_string(config.gradient_mode);
  if (!sim.fields()) report.state_names = sim.state_names;
  for (const auto& o : config.observables) report.observable_names.push_back(o.name);
  for (const auto& e : config.experiments) report.experiment_ids.push_back(e.id);
  report.objective = best.objective;
  report.converged = best.converged;
  report.reason = best.reason;
  report.starts = runs;
  report.measurements = config.measurements;
  return report;
}

// Where every start failed: a checkpoint budget too small is bad input, the rest a failed run.
template <class Fits>
int all_starts_failed(const FitConfig& config, const Fits& fits) {
  for (const auto& fit : fits) {
    if (const auto& shortfall = fit.short_budget()) {
      report_error(config.checkpointing.shortfall_error(*shortfall));
      return kExitBadInput;
    }
    if (!fit.invalid_options().empty()) {  // e.g. a store_all that cannot fit in memory
      report_error(config.simulate.file, ": ", fit.invalid_options());
      return kExitBadInput;
    }
  }
  std::string where;  // the latest failure: its experiment, and where the NaN appeared
  for (const auto& fit : fits)
    if (const auto& failure = fit.last_failure())
      where = "; the last failed solve, experiment '" + config.experiments[failure->experiment].id + "': " +
              (failure->nonfinite ? failure->nonfinite->describe(config.simulate.state_names) : failure->message);
  report_error(config.simulate.file, ": the objective failed from every start", where);
  return kExitRunFailed;
}

// A fit that stopped short of the gradient tolerance still exits 0 with its best point, and
// says so; only a fit whose objective failed everywhere exits 1.
void warn_unless_converged(const StartResult& best) {
  if (!best.converged)
    std::cerr << "warning: the fit stopped before the gradient tolerance (" << best.reason
              << "; projected gradient " << best.projected_gradient_norm
              << "): the result is the best point reached (raise optimizer.max_iterations, or check the bounds)\n";
}

void print_estimated_sigma(const FitConfig& config, const std::vector<double>& sigma, bool json) {
  if (config.estimate_sigma)
    for (std::size_t o = 0; o < config.observables.size(); ++o)
      std::fprintf(results_file(json), "  sigma(%s) = %.6g  (estimated)\n", config.observables[o].name.c_str(),
                   sigma[o]);
}

void print_progress(std::size_t start, std::size_t iteration, double f, double g, double step) {
  std::fprintf(stderr, "  start %zu  iteration %3zu  objective %.10g  |grad| %.3e  step %.3e\n", start + 1,
               iteration, f, g, step);
}

template <Model M>
int fit_model(const M& model, const FitConfig& config, bool json) {
  const SimulateConfig& sim = config.simulate;
  const Scaled scaled = scaled_parameters(config);
  const GradientMode mode = config.gradient_mode;
  ConfigFit<M> fit = make_fit(model, config, scaled);
  std::cerr << "fit: " << scaled.parameters.size() << " parameters, "
            << config.measurements.size() << " measurements, " << config.experiments.size()
            << " experiment(s); gradients by the "
            << (mode == GradientMode::adjoint ? "discrete adjoint" : "forward tangent") << " of "
            << sim.method.name()
            << "; " << config.optimizer.starts << " start(s)"
            << (sim.backend == "omp" ? " in parallel (omp)" : "") << '\n';

  // A fit a start: a fit keeps state between evaluations (the profiled sigma), and with
  // backend omp the starts run at once. Each start's result is the serial one.
  std::vector<ConfigFit<M>> fits(config.optimizer.starts, fit);
  const MultistartResult runs = minimize_multistart(
      [&](std::size_t s) -> FitObjective {
        return [&fit = fits[s]](const std::vector<double>& theta, std::vector<double>& gradient) {
          std::string failure;
          return fit.evaluate(theta, gradient, failure);
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
  if (!fit.fisher(best.x, information, report.predictions, failure) ||
      !fitted_trajectories(model, config, best.x, fit, report, failure)) {
    report_error(sim.file, ": at the optimum: ", failure);
    return kExitRunFailed;
  }
  report.sigmas = fit.sigmas();
  if (config.estimate_sigma) report.estimated_sigma = fit.profiled_sigma();
  const ParameterErrors errors = standard_errors(information, scaled.parameters, best.x);
  if (!errors.identifiable)
    std::cerr << "warning: the Fisher information is singular: some parameters are not "
                 "identifiable from these data\n";
  report.covariance.assign(errors.covariance.data(), errors.covariance.data() + errors.covariance.size());

  nlohmann::json parameters = nlohmann::json::object();
  results_stream(json) << "fit: objective " << best.objective << " (" << best.reason << ")\n";
  std::size_t i = 0;  // the estimated parameters come in config order
  for (const FitParameter& p : config.parameters) {
    double value = p.nominal, error = NAN;
    if (p.estimate) {
      value = scaled.parameters[i].to_value(best.x[i]);
      error = errors.standard_errors[i];
      ++i;
    }
    report.parameter_names.push_back(p.name);
    report.scales.push_back(p.log10 ? "log10" : "lin");
    report.values.push_back(value);
    report.standard_errors.push_back(error);
    report.lower.push_back(p.lower);
    report.upper.push_back(p.upper);
    report.estimated.push_back(p.estimate ? 1.0 : 0.0);
    parameters[p.name] = {{"value", value}, {"standard_error", finite_or_null(error)},
                          {"estimated", p.estimate}};
    std::fprintf(results_file(json), "  %-12s %.10g +- %.3g%s\n", p.name.c_str(), value, error,
                 p.estimate ? "" : "  (fixed)");
  }
  print_estimated_sigma(config, fit.profiled_sigma(), json);
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
                          {"parameters", parameters},
                          {"starts", starts}};
    if (config.estimate_sigma) {
      nlohmann::json sigma = nlohmann::json::object();
      for (std::size_t o = 0; o < config.observables.size(); ++o)
        sigma[config.observables[o].name] = finite_or_null(fit.profiled_sigma()[o]);
      out["sigma"] = sigma;
    }
    std::cout << out.dump() << '\n';
  }
  return kExitOk;
}

// The entries of theta (or of a vector ordered like it) that belong to estimated parameter
// fields, as fields: entry i is value(i).
template <class Value>
std::vector<NamedField> estimated_fields(const FitConfig& config, Value value) {
  std::vector<NamedField> fields;
  std::size_t first = 0;
  for (const FitParameter& p : config.parameters) {
    if (!p.estimate) continue;
    if (p.field) {
      fields.push_back({p.name, std::vector<double>(p.points)});
      for (std::size_t j = 0; j < p.points; ++j) fields.back().values[j] = value(first + j);
    }
    first += p.points;
  }
  return fields;
}

// A fit of parameter fields: L-BFGS-B from the prior fields on the misfit plus the
// fields' regularisation. Writes fit.h5 (with /parameter_fields), the CSV files, and VTK:
// fit.pvd (each field fitted, its prior, and the misfit's gradient at the fit) and the
// misfit's adjoint fields at the fit, adjoint.pvd (adjoint_<experiment>.pvd with several;
// adjoint gradients only).
template <Model M>
int fit_field_model(const M& model, const FitConfig& config, bool json) {
  const SimulateConfig& sim = config.simulate;
  const GridLayout& fields = *sim.fields();
  const Grid& grid = fields.grid();
  const Scaled scaled = scaled_parameters(config);
  ConfigFit<M> fit = make_fit(model, config, scaled);
  std::cerr << "fit: " << scaled.parameters.size() << " values (parameter fields point by point), "
            << config.measurements.size() << " measurements, " << config.experiments.size()
            << " experiment(s); gradients by the "
            << (config.gradient_mode == GradientMode::adjoint ? "discrete adjoint" : "forward tangent") << " of "
            << sim.method.name() << "; L-BFGS-B from the prior fields\n";
  const FitObjective objective = [&](const std::vector<double>& theta, std::vector<double>& gradient) {
    std::string failure;
    const double misfit = fit.evaluate(theta, gradient, failure);
    return std::isfinite(misfit) ? misfit + field_regularization(config, scaled, theta, gradient) : misfit;
  };
  const MultistartResult runs{{minimize_from(objective, scaled.nominal, 0, scaled.lower, scaled.upper,
                                             config.optimizer, print_progress)},
                              0};
  const StartResult& best = runs.starts[0];
  if (!std::isfinite(best.objective)) return all_starts_failed(config, std::span(&fit, 1));

  // At the fit: the misfit, its gradient and adjoint fields, and the predictions.
  const std::vector<double> times = field_output_times(sim);
  std::vector<std::vector<FieldSnapshot>> adjoints(config.experiments.size());
  fit.adjoint_observer = [&](std::size_t e, double t, const double* lambda) {
    if (std::binary_search(times.begin(), times.end(), t))
      adjoints[e].push_back({t, split_fields(fields.fields(), lambda, grid.points())});
  };
  std::vector<double> misfit_gradient, unused(scaled.parameters.size(), 0.0);
  std::string failure;
  const double misfit = fit.evaluate(best.x, misfit_gradient, failure);
  fit.adjoint_observer = nullptr;
  const double penalty = field_regularization(config, scaled, best.x, unused);
  FitReport report = base_report(config, runs);
  if (!std::isfinite(misfit) || !fit.predict(best.x, report.predictions, failure) ||
      !fitted_trajectories(model, config, best.x, fit, report, failure)) {
    report_error(sim.file, ": at the fit: ", failure);
    return kExitRunFailed;
  }
  report.sigmas = fit.sigmas();
  if (config.estimate_sigma) report.estimated_sigma = fit.profiled_sigma();
  report.grid_shape = grid.shape();
  report.parameter_fields = estimated_fields(config, [&](std::size_t i) {
    return scaled.parameters[i].to_value(best.x[i]);
  });
  const std::vector<NamedField> priors = estimated_fields(config, [&](std::size_t i) {
    return scaled.parameters[i].to_value(scaled.nominal[i]);
  });
  const std::vector<NamedField> gradients = estimated_fields(config, [&](std::size_t i) {
    return misfit_gradient[i] / scaled.parameters[i].slope(best.x[i]);
  });

  results_stream(json) << "fit: objective " << best.objective << " = misfit " << misfit << " + regularisation "
                       << penalty << " (" << best.reason << ", " << best.iterations << " iterations)\n";
  warn_unless_converged(best);
  nlohmann::json parameters = nlohmann::json::object(), parameter_fields = nlohmann::json::object();
  std::size_t first = 0;
  for (const FitParameter& p : config.parameters) {
    if (p.field) {
      if (p.estimate) first += p.points;
      continue;
    }
    const double value = p.estimate ? scaled.parameters[first].to_value(best.x[first]) : p.nominal;
    first += p.estimate ? 1 : 0;
    report.parameter_names.push_back(p.name);
    report.scales.push_back(p.log10 ? "log10" : "lin");
    report.values.push_back(value);
    report.standard_errors.push_back(NAN);  // not computed beside a field: no Fisher information
    report.lower.push_back(p.lower);
    report.upper.push_back(p.upper);
    report.estimated.push_back(p.estimate ? 1.0 : 0.0);
    parameters[p.name] = {{"value", value}, {"standard_error", nullptr}, {"estimated", p.estimate}};
    std::fprintf(results_file(json), "  %-12s %.10g%s\n", p.name.c_str(), value, p.estimate ? "" : "  (fixed)");
  }
  print_estimated_sigma(config, fit.profiled_sigma(), json);
  for (std::size_t f = 0; f < report.parameter_fields.size(); ++f) {
    const std::vector<double>& values = report.parameter_fields[f].values;
    const auto [low, high] = std::minmax_element(values.begin(), values.end());
    double change = 0, size = 0;
    for (std::size_t j = 0; j < values.size(); ++j) {
      change += (values[j] - priors[f].values[j]) * (values[j] - priors[f].values[j]);
      size += priors[f].values[j] * priors[f].values[j];
    }
    const std::string& name = report.parameter_fields[f].name;
    parameter_fields[name] = {{"min", *low},
                              {"max", *high},
                              {"relative_change", finite_or_null(std::sqrt(change / size))},
                              {"dataset", "/parameter_fields/" + name}};
    std::fprintf(results_file(json), "  %-12s field in [%.6g, %.6g], %.3g relative change from the prior "
                 "(fit.h5:/parameter_fields/%s)\n", name.c_str(), *low, *high, std::sqrt(change / size), name.c_str());
  }
  try {
    OutputSet outputs(sim.output_dir);
    write_fit_files(report, outputs.staging().string());
    FieldSnapshot snapshot{sim.integrate.t0, {}};
    for (std::size_t f = 0; f < priors.size(); ++f) {
      snapshot.fields.push_back(report.parameter_fields[f]);
      snapshot.fields.push_back({priors[f].name + "_prior", priors[f].values});
      snapshot.fields.push_back({"misfit_gradient_" + gradients[f].name, gradients[f].values});
    }
    write_vtk_series(outputs.staging().string(), "fit", grid, {snapshot});
    for (std::size_t e = 0; e < adjoints.size() && config.gradient_mode == GradientMode::adjoint; ++e) {
      std::reverse(adjoints[e].begin(), adjoints[e].end());
      write_vtk_series(outputs.staging().string(),
                       adjoints.size() == 1 ? "adjoint" : "adjoint_" + config.experiments[e].id, grid, adjoints[e]);
    }
    commit_outputs(outputs, "fit");
  } catch (const std::exception& error) {
    report_error(error.what());
    return kExitRunFailed;
  }
  if (json)
    std::cout << nlohmann::json{{"objective", best.objective},
                                {"misfit", misfit},
                                {"regularization", penalty},
                                {"converged", best.converged},
                                {"reason", best.reason},
                                {"iterations", best.iterations},
                                {"evaluations", best.evaluations},
                                {"gradient_mode", to_string(config.gradient_mode)},
                                {"parameters", parameters},
                                {"parameter_fields", parameter_fields}}
                     .dump()
              << '\n';
  return kExitOk;
}

// `gradient` on a fit config: the objective's gradient at the nominal point (with the
// regularisation of estimated parameter fields, whose gradients go to gradient.h5).
template <Model M>
int gradient_model(const M& model, const FitConfig& config, bool json) {
  const Scaled scaled = scaled_parameters(config);
  const std::string mode = to_string(config.gradient_mode);
  ConfigFit<M> fit = make_fit(model, config, scaled);
  std::vector<double> gradient;
  std::string failure;
  double value = fit.evaluate(scaled.nominal, gradient, failure);
  if (!std::isfinite(value)) {
    report_error(config.simulate.file, ": the gradient failed: ", failure);
    return fit.invalid_options().empty() ? kExitRunFailed : kExitBadInput;
  }
  const bool fields = estimates_field(config);
  if (fields) value += field_regularization(config, scaled, scaled.nominal, gradient);
  nlohmann::json in_scaled = nlohmann::json::object(), in_linear = nlohmann::json::object();
  results_stream(json) << (fields ? "misfit + regularisation " : "negative log-likelihood ") << value << " ("
                       << mode << ")\n";
  for (std::size_t i = 0; i < gradient.size(); ++i) {
    const FitParameter& p = config.parameters[scaled.config_index[i]];
    if (p.field) continue;
    const double linear = gradient[i] / scaled.parameters[i].slope(scaled.nominal[i]);
    in_scaled[p.name] = gradient[i];
    in_linear[p.name] = linear;
    std::fprintf(results_file(json), "  dJ/d%-10s %.10g (scaled)  %.10g (linear)\n", p.name.c_str(), gradient[i],
                 linear);
  }
  nlohmann::json out = {{"objective", value},
                        {"gradient", {{"scaled", in_scaled}, {"linear", in_linear}}},
                        {"gradient_mode", mode}};
  if (fields) {  // linear space, whole, in gradient.h5
    GradientOutput output;
    output.model = config.simulate.model;
    output.mode = mode;
    output.objective = value;
    output.grid_shape = config.simulate.fields()->grid().shape();
    output.parameter_fields = estimated_fields(config, [&](std::size_t i) {
      return gradient[i] / scaled.parameters[i].slope(scaled.nominal[i]);
    });
    out["gradient"]["parameter_fields"] = field_norms_json(output.parameter_fields, "/gradient/parameter_fields");
    try {
      OutputSet outputs(config.simulate.output_dir);
      write_gradient_hdf5(output, (outputs.staging() / "gradient.h5").string());
      commit_outputs(outputs, "gradient");
    } catch (const std::exception& error) {
      report_error(error.what());
      return kExitRunFailed;
    }
    for (const auto& [name, entry] : out["gradient"]["parameter_fields"].items())
      results_stream(json) << "  |dJ/d" << name << "| = " << entry["norm"].template get<double>() << "  (gradient.h5:"
                           << entry["dataset"].template get<std::string>() << ")\n";
  }
  if (json) std::cout << out.dump() << '\n';
  return kExitOk;
}

template <class Run>
int with_fit_config(const std::string& path, Run&& run) {
  const auto loaded = load_config(load_fit_config, path);
  if (!loaded) return kExitBadInput;
  const FitConfig& config = *loaded;
  int code = kExitRunFailed;
  visit_model(config.simulate, [&](const auto& model) { code = run(model, config); });
  return code;
}

}  // namespace

int run_fit(const std::string& config_path, bool json) {
  return with_fit_config(config_path, [&](const auto& model, const FitConfig& config) {
    return estimates_field(config) ? fit_field_model(model, config, json) : fit_model(model, config, json);
  });
}

int run_fit_gradient(const std::string& config_path, bool json) {
  return with_fit_config(config_path, [&](const auto& model, const FitConfig& config) {
    return gradient_model(model, config, json);
  });
}

}  // namespace backsweep::apps
