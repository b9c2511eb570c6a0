#include "apps/config_fit_engine.hpp"

#include <cmath>
#include <iostream>

#include "apps/error_report.hpp"
#include "apps/exit_codes.hpp"
#include "apps/parallel_members.hpp"
#include "io/config/backends.hpp"
#include "io/assembly/config_objective.hpp"
#include "io/assembly/visit_model.hpp"
#include "solvers/solve.hpp"

namespace backsweep::apps {

namespace {

template <Model M>
using ConfigFit = DataFit<M, ConfigObservables, ConfigExperimentInitial>;

// Each experiment's parameters: the fixed ones at their nominal or overridden values.
std::vector<std::vector<double>> experiment_parameters(const FitConfig& config) {
  std::vector<std::vector<double>> parameters;
  for (const auto& e : config.experiments) parameters.push_back(e.parameters);
  return parameters;
}

// A failed solve, its experiment and state named.
std::string describe(const FitConfig& config, const FitSolveFailure& failure) {
  return "experiment '" + config.experiments[failure.experiment].id + "': " +
         (failure.nonfinite ? failure.nonfinite->describe(config.simulate.state_names) : failure.message);
}

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

template <Model M>
class ModelFitEngine final : public FitEngine {
 public:
  ModelFitEngine(const M& model, const FitConfig& config, const Scaled& scaled)
      : model_(std::make_shared<const M>(model)), config_(&config), fit_(make_fit(*model_, config, scaled)) {
    fit_.describe_failure = [&config](const FitSolveFailure& failure) { return describe(config, failure); };
  }

  std::unique_ptr<FitEngine> clone() const override { return std::make_unique<ModelFitEngine>(*this); }
  double evaluate(const std::vector<double>& theta, std::vector<double>& gradient, std::string& failure) override {
    return fit_.evaluate(theta, gradient, failure);
  }
  bool fisher(const std::vector<double>& theta, Eigen::MatrixXd& information, std::vector<double>& predictions,
              std::string& failure) override {
    return fit_.fisher(theta, information, predictions, failure);
  }
  bool predict(const std::vector<double>& theta, std::vector<double>& predictions,
               std::string& failure) const override {
    return fit_.predict(theta, predictions, failure);
  }
  bool trajectories(const std::vector<double>& theta, FitReport& report, std::string& failure) const override {
    const FitConfig& config = *config_;
    const SimulateConfig& sim = config.simulate;
    const bool states = !sim.fields();
    IntegrateOptions options = sim.integrate;
    if (options.output_times.empty())
      for (int k = 1; k <= 200; ++k)
        options.output_times.push_back(options.t0 + (options.t1 - options.t0) * k / 200.0);
    for (std::size_t e = 0; e < config.experiments.size(); ++e) {
      FitReport::Trajectory trajectory;
      const std::vector<double> p = fit_.parameters(e, theta);
      std::vector<double> y(sim.state_names.size());
      ConfigExperimentInitial{&config}(e, p.data(), y.data());
      const IntegrateResult solved =
          solve_forward(*model_, sim.method, y.data(), p.data(), options, [&](double t, const double* state) {
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
  const std::vector<double>& sigmas() const override { return fit_.sigmas(); }
  const std::vector<double>& profiled_sigma() const override { return fit_.profiled_sigma(); }
  const std::optional<OptionRefusal>& refused() const override { return fit_.refused(); }
  const std::string& invalid_options() const override { return fit_.invalid_options(); }
  const std::optional<FitSolveFailure>& last_failure() const override { return fit_.last_failure(); }
  const std::vector<std::optional<GrowthReport>>& monitors() const override { return fit_.monitors(); }
  void observe_adjoint(std::function<void(std::size_t, double, const double*)> observer) override {
    fit_.adjoint_observer = std::move(observer);
  }
  void spread_experiments(bool spread) override { fit_.spread_experiments = spread; }
  void run_experiments(std::function<void(std::size_t, const std::function<void(std::size_t)>&)> loop,
                       std::size_t at_once) override {
    fit_.experiment_loop = std::move(loop);
    fit_.experiments_at_once = at_once;
  }

 private:
  // The fit refers to the model: a copy of the visited one, shared by the clones.
  std::shared_ptr<const M> model_;
  const FitConfig* config_;
  ConfigFit<M> fit_;
};

}  // namespace

std::unique_ptr<FitEngine> make_fit_engine(const FitConfig& config, const Scaled& scaled) {
  std::unique_ptr<FitEngine> engine;
  visit_model(config.simulate, [&](const auto& model) {
    engine = std::make_unique<ModelFitEngine<std::remove_cvref_t<decltype(model)>>>(model, config, scaled);
  });
  if (find_backend(config.simulate.backend)->parallel_runs)  // backend omp: experiments a thread each
    engine->run_experiments([](std::size_t count, const std::function<void(std::size_t)>& work) {
      for_each_member(count, true, work);
    }, members_at_once());
  return engine;
}

bool report_monitors(const FitEngine& fit, const std::vector<double>& x, FitReport& report, std::string& failure) {
  const std::unique_ptr<FitEngine> at_fit = fit.clone();  // the fit's own state stays as it is
  std::vector<double> gradient;
  if (std::isnan(at_fit->evaluate(x, gradient, failure))) return false;
  const std::vector<std::optional<GrowthReport>>& monitors = at_fit->monitors();
  report.monitors = monitors;
  for (std::size_t e = 0; e < monitors.size(); ++e) {
    if (monitors[e] && monitors[e]->verdict != GrowthVerdict::stable)
      std::cerr << "warning: at the fit, the " << to_string(monitors[e]->watched) << " monitor of experiment '"
                << report.experiment_ids[e] << "' says " << to_string(monitors[e]->verdict) << ": "
                << monitors[e]->explanation << '\n';
  }
  return true;
}

int all_starts_failed(const FitConfig& config, const std::vector<std::unique_ptr<FitEngine>>& fits) {
  for (const auto& fit : fits) {
    if (const auto& refused = fit->refused()) {
      report_error(config.checkpointing.refusal_error(*refused));
      return kExitBadInput;
    }
    if (!fit->invalid_options().empty()) {  // e.g. a store_all that cannot fit in memory
      report_error(config.simulate.file, ": ", fit->invalid_options());
      return kExitBadInput;
    }
  }
  std::string where;  // the latest failure: its experiment, and where the NaN appeared
  for (const auto& fit : fits)
    if (const auto& failure = fit->last_failure()) where = "; the last failed solve, " + describe(config, *failure);
  report_error(config.simulate.file, ": the objective failed from every start", where);
  return kExitRunFailed;
}

}  // namespace backsweep::apps
