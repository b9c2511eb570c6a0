#pragma once
// What `fit` reads (and `gradient` when the file has [data] but no [objective]): the
// simulate sections, [[estimate]], [[observables]], [data], [[experiments]], [noise],
// [optimizer] and [checkpointing] (docs/config.md). The measurements are read from the
// CSV file [data] names, relative to the config file's folder. The observables are
// formulas, checked here; io/assembly/fit_config.hpp parses them for the engine.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "adjoint/gradient_mode.hpp"
#include "adjoint/gradient_problem.hpp"
#include "fit/estimated_parameter.hpp"
#include "fit/field_regularization.hpp"
#include "fit/noise_model.hpp"
#include "fit/multistart.hpp"
#include "io/config/checkpointing_config.hpp"
#include "io/config/measurements.hpp"
#include "io/config/formula.hpp"
#include "io/config/simulate_spec.hpp"

namespace backsweep {

namespace detail {
class TomlSection;  // io/config/toml_reader.hpp
}

struct ConfigFile;  // io/config/config_file.hpp

// A scalar parameter, or a parameter field estimated point by point: `points` values
// from `index` on, each within [lower, upper], starting from (and regularised towards)
// the field [parameters] gives.
struct FitParameter {
  std::string name;
  std::size_t index = 0;  // in the model's parameters
  double nominal = 0.0, lower = 0.0, upper = 0.0;  // linear space (a field's: at point 0)
  ParameterScale scale = ParameterScale::lin;  // the optimiser's
  bool estimate = true;   // false: held at the nominal value
  bool field = false;
  std::size_t points = 1;              // a field's: the grid's points
  FieldRegularization regularization;  // [regularization.<name>], fields only
};

struct ObservableSpec {
  std::string name;
  Formula formula;  // of t, the states, the parameters (expression_scope)
  // A PEtab observable's noise: its sigma as a formula like `formula`'s, and its
  // transformation and distribution (none: Gaussian, of the sigma the data give).
  std::optional<Formula> noise;
  NoiseModel noise_model;
};

struct FitExperimentConfig {
  std::string id;
  std::vector<double> initial_state, parameters;  // with the experiment's overrides
  // Per state: the experiment gives its initial value; otherwise [initial] does (a
  // number, or an expression of the parameters: simulate.initial_formulas).
  std::vector<bool> initial_overridden;
  // Per state (or empty): an initial value the experiment gives as a formula of the
  // parameters (a PEtab condition's parameter id), in place of the number.
  std::vector<std::optional<Formula>> initial_formulas;
  // (target, source): the experiment's parameter target takes source's value (DataFit's
  // parameter_aliases).
  std::vector<std::pair<std::size_t, std::size_t>> aliases;
  // (target, formula): the experiment's parameter target is the formula of the parameters
  // (a PEtab condition's), after the aliases, in order.
  std::vector<std::pair<std::size_t, Formula>> parameter_formulas;
  // The experiment whose steady state it starts from (PEtab's pre-equilibration), in the
  // states it does not set itself.
  std::optional<std::size_t> preequilibration;
  // Events of its own beside the model's (PEtab's later periods: their changes at their
  // start times).
  std::vector<EventSpec> events;
};

// What a fit config says beyond its model and its observables' formulas.
struct FitSettings {
  std::vector<FitParameter> parameters;
  std::vector<FitExperimentConfig> experiments;
  std::string measurements_path;
  std::vector<Measurement> measurements;
  bool estimate_sigma = false;  // noise.sigma = "estimate"
  OptimizerOptions optimizer;
  GradientMode gradient_mode = GradientMode::adjoint;  // optimizer.gradient, "auto" resolved
  CheckpointingConfig checkpointing;
};

struct FitSpec : FitSettings {
  SimulateSpec simulate;
  std::vector<ObservableSpec> observables;
  // (state, formula of t, the states and the parameters): the state's value at the start
  // of a pre-equilibrated experiment, read there (an SBML switch's relation).
  std::vector<std::pair<std::size_t, Formula>> restarted_states;
};

// ConfigError on any problem.
FitSpec fit_spec(const ConfigFile& file);

// [optimizer] (method, max_iterations, gradient_tolerance, starts, seed, gradient) into
// config.optimizer and config.gradient_mode: a config's, and a PEtab problem's from --set.
void read_optimizer_section(const detail::TomlSection& root, FitSpec& config);

// Whether a parameter field is estimated (a fit of a field runs from its prior, once).
bool estimates_field(const FitSettings& config);

}  // namespace backsweep
