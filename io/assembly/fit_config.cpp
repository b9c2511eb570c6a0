#include "io/assembly/fit_config.hpp"

#include <utility>

#include "io/config/config_file.hpp"
#include "io/config/expression_reader.hpp"

namespace backsweep {

FitConfig assemble_fit(FitSpec spec) {
  FitConfig config;
  static_cast<FitSettings&>(config) = std::move(static_cast<FitSettings&>(spec));
  config.simulate = assemble_simulate(std::move(spec.simulate));
  const ExpressionScope scope = expression_scope(config.simulate);
  for (const ObservableSpec& o : spec.observables) {
    FitObservable& observable = config.observables.emplace_back(o.name, parse_formula(o.formula, scope));
    if (o.noise) observable.noise = parse_formula(*o.noise, scope);
    observable.noise_model = o.noise_model;
  }
  for (const auto& [state, formula] : spec.restarted_states)
    config.restarted_states.emplace_back(state, parse_formula(formula, scope));
  std::optional<ExpressionScope> of_parameters;  // only where an experiment has initial formulas (never on a grid)
  for (const FitExperimentConfig& e : config.experiments) {
    auto& initial = config.experiment_initial.emplace_back();
    for (const auto& formula : e.initial_formulas) {
      if (formula && !of_parameters) of_parameters.emplace(initial_value_scope(config.simulate));
      initial.push_back(formula ? std::optional(parse_formula(*formula, *of_parameters)) : std::nullopt);
    }
  }
  std::optional<ExpressionScope> of_parameters_alone;  // only where an experiment has parameter formulas (PEtab's)
  for (const FitExperimentConfig& e : config.experiments) {
    auto& formulas = config.experiment_parameter_formulas.emplace_back();
    for (const auto& [target, formula] : e.parameter_formulas) {
      if (!of_parameters_alone) of_parameters_alone.emplace(config.simulate.parameter_names);
      formulas.emplace_back(target, parse_formula(formula, *of_parameters_alone));
    }
    std::vector<EventSpec> events = e.events;  // its own first: at one time, PEtab's changes come before the model's
    events.insert(events.end(), config.simulate.events.begin(), config.simulate.events.end());
    config.experiment_events.push_back(e.events.empty() ? nullptr : build_time_events(config.simulate, events));
  }
  return config;
}

FitConfig load_fit_config(const std::string& path) { return fit_config(read_config_file(path)); }

FitConfig fit_config(const ConfigFile& file) { return assemble_fit(fit_spec(file)); }

}  // namespace backsweep
