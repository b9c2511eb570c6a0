// A fit config's FitEngine for one model kind (apps/engine_of.hpp).
#include <algorithm>

#include "apps/engine_of.hpp"
#include "apps/engine_of/model_kind.hpp"
#include "io/assembly/config_objective.hpp"
#include "solvers/solve.hpp"

namespace backsweep::apps {

namespace {

template <Model M>
using ConfigFit = DataFit<M, ConfigObservables, ConfigExperimentInitial, ConfigNoise>;

// Each experiment's parameters: the fixed ones at their nominal or overridden values.
std::vector<std::vector<double>> experiment_parameters(const FitConfig& config) {
  std::vector<std::vector<double>> parameters;
  for (const auto& e : config.experiments) parameters.push_back(e.parameters);
  return parameters;
}

// An experiment that starts from another's steady state keeps it in the states it does
// not set itself.
std::optional<Preequilibration> preequilibration_of(const FitExperimentConfig& e) {
  if (!e.preequilibration) return std::nullopt;
  Preequilibration start{*e.preequilibration, std::vector<bool>(e.initial_overridden.size())};
  for (std::size_t s = 0; s < start.kept.size(); ++s)
    start.kept[s] = !e.initial_overridden[s] && !(s < e.initial_formulas.size() && e.initial_formulas[s]);
  return start;
}

// p[target] = formula(p), for each of an experiment's parameter formulas in order.
template <class T>
void derive(const std::vector<std::pair<std::size_t, Expression>>& formulas, T* p) {
  for (const auto& [target, formula] : formulas) p[target] = formula.evaluate(static_cast<const T*>(p));
}

template <Model M>
ConfigFit<M> make_fit(const M& model, const FitConfig& config, const Scaled& scaled) {
  const SimulateConfig& sim = config.simulate;
  IntegrateOptions integrate = sim.integrate;
  integrate.output_times.clear();
  return ConfigFit<M>(model, sim.method, integrate, ConfigObservables{&config},
                      config.observables.size(), ConfigExperimentInitial{&config},
                      experiment_parameters(config), config.measurements, scaled.parameters,
                      config.estimate_sigma, config.gradient_mode, config.checkpointing.options,
                      ConfigNoise{&config});
}

template <Model M>
class ModelFitEngine final : public FitEngine {
 public:
  ModelFitEngine(const M& model, const FitConfig& config, const Scaled& scaled)
      : model_(std::make_shared<const M>(model)), config_(&config), fit_(make_fit(*model_, config, scaled)) {
    fit_.describe_failure = [&config](const FitSolveFailure& failure) { return describe_failure(config, failure); };
    for (const FitExperimentConfig& e : config.experiments) {
      fit_.parameter_aliases.push_back(e.aliases);
      fit_.preequilibration.push_back(preequilibration_of(e));
    }
    fit_.experiment_events = config.experiment_events;
    if (!config.restarted_states.empty())
      fit_.restart = [&config](double t, const double* start, const double* p, double* steady) {
        for (const auto& [s, relation] : config.restarted_states) steady[s] = evaluate_at(relation, t, start, p);
      };
    const auto& formulas = config.experiment_parameter_formulas;
    if (std::any_of(formulas.begin(), formulas.end(), [](const auto& f) { return !f.empty(); })) {
      fit_.derive_values = [&formulas](std::size_t e, double* p) { derive(formulas[e], p); };
      fit_.derive_slopes = [&formulas](std::size_t e, typename ConfigFit<M>::Lanes* p) { derive(formulas[e], p); };
    }
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
  bool predict_rows(const std::vector<double>& theta, std::vector<double>& rows, std::string& failure) const override {
    return fit_.predict_rows(theta, rows, failure);
  }
  bool trajectories(const std::vector<double>& theta, FitReport& report, std::string& failure) const override {
    const FitConfig& config = *config_;
    const SimulateConfig& sim = config.simulate;
    const bool states = !sim.fields();
    std::vector<double> times = sim.integrate.output_times;
    if (times.empty())
      for (int k = 1; k <= 200; ++k) times.push_back(sim.integrate.t0 + (sim.integrate.t1 - sim.integrate.t0) * k / 200.0);
    for (std::size_t e = 0; e < config.experiments.size(); ++e) {
      IntegrateOptions options = fit_.options_of(e);
      options.output_times = times;
      FitReport::Trajectory trajectory;
      const std::vector<double> p = fit_.parameters(e, theta);
      std::vector<double> y;
      if (!fit_.start_state(e, theta, y, failure)) return false;
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

template <Model M>
std::unique_ptr<FitEngine> fit_engine_of(const M& model, const FitConfig& config, const Scaled& scaled) {
  return std::make_unique<ModelFitEngine<M>>(model, config, scaled);
}

template std::unique_ptr<FitEngine> fit_engine_of(const ModelKind&, const FitConfig&, const Scaled&);

}  // namespace backsweep::apps
