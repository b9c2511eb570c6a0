#pragma once
// What the fit commands share (fit, fits of parameter fields, gradient on a fit config):
// the estimated parameters in scaled space, the DataFit of a config, the regularisation
// of estimated fields, the trajectories and the report at the fit, and how failures and
// progress are told.
#include <cstddef>
#include <string>
#include <vector>

#include "apps/error_report.hpp"
#include "apps/exit_codes.hpp"
#include "fit/data_fit.hpp"
#include "fit/multistart.hpp"
#include "io/config_objective.hpp"
#include "io/fit_config.hpp"
#include "io/fit_output.hpp"
#include "io/named_field.hpp"
#include "io/visit_model.hpp"
#include "solvers/solve.hpp"

namespace backsweep::apps {

// The estimated parameters, their bounds in scaled space, and the nominal point; a
// parameter field is estimated point by point, one entry a point.
struct Scaled {
  std::vector<EstimatedParameter> parameters;
  std::vector<double> lower, upper, nominal;
  std::vector<std::size_t> config_index;  // into FitConfig::parameters
};

Scaled scaled_parameters(const FitConfig& config);

// The regularisation of the estimated parameter fields at theta, with its gradient added
// to `gradient` (scaled space).
double field_regularization(const FitConfig& config, const Scaled& scaled, const std::vector<double>& theta,
                            std::vector<double>& gradient);

// Each experiment's parameters: the fixed ones at their nominal or overridden values.
std::vector<std::vector<double>> experiment_parameters(const FitConfig& config);

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
FitReport base_report(const FitConfig& config, const MultistartResult& runs);

// Where every start failed: a refused option is bad input, the rest a failed run.
template <class Fits>
int all_starts_failed(const FitConfig& config, const Fits& fits) {
  for (const auto& fit : fits) {
    if (const auto& refused = fit.refused()) {
      report_error(config.checkpointing.refusal_error(*refused));
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
void warn_unless_converged(const StartResult& best);

void print_estimated_sigma(const FitConfig& config, const std::vector<double>& sigma, bool json);

void print_progress(std::size_t start, std::size_t iteration, double f, double g, double step);

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

// Calls run(model) with the model of a fit config; its exit code.
template <class Run>
int visit_fit_model(const FitConfig& config, Run&& run) {
  int code = kExitRunFailed;
  visit_model(config.simulate, [&](const auto& model) { code = run(model); });
  return code;
}

// A fit of parameter fields (field_fit_command.cpp); the process exit code.
int fit_fields(const FitConfig& config, bool json);

}  // namespace backsweep::apps
