#pragma once
// A fit config built for the engine: its simulate sections (simulate_config.hpp) and its
// observables' formulas parsed in the config's scope.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "io/assembly/simulate_config.hpp"
#include "io/config/fit_spec.hpp"
#include "models/expression.hpp"

namespace backsweep {

struct FitObservable {
  std::string name;
  Expression formula;  // of t, the states, the parameters (expression_scope)
  std::optional<Expression> noise;  // PEtab's sigma, of the same; none: the data's
  NoiseModel noise_model;
};

struct FitConfig : FitSettings {
  SimulateConfig simulate;
  std::vector<FitObservable> observables;
  // Per experiment, per state (or empty): experiments[e].initial_formulas parsed.
  std::vector<std::vector<std::optional<Expression>>> experiment_initial;
  // Per experiment: experiments[e].parameter_formulas parsed (of the parameters).
  std::vector<std::vector<std::pair<std::size_t, Expression>>> experiment_parameter_formulas;
  // spec.restarted_states parsed (of t, the states and the parameters).
  std::vector<std::pair<std::size_t, Expression>> restarted_states;
  // Per experiment: null, or the model's events with its own (experiments[e].events).
  std::vector<std::shared_ptr<const TimeEvents>> experiment_events;
};

FitConfig assemble_fit(FitSpec spec);
FitConfig load_fit_config(const std::string& path);
// The same from a file already read (ConfigError on any problem).
FitConfig fit_config(const ConfigFile& file);

}  // namespace backsweep
