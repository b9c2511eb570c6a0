#pragma once
// Readers of the sections that say which model runs from where: [model] (a built-in
// model by name, or states, parameters, equations and constants defined in the file),
// [parameters] and [initial] (numbers, or expressions of the parameters).
#include "io/config/toml_reader.hpp"
#include "io/config/simulate_spec.hpp"

namespace backsweep::detail {

// Sets model, kind, equations, state_names, parameter_names, constants and, for
// built-in models, their default parameters and initial state.
void read_model_section(const TomlSection& root, SimulateSpec& config);

// [parameters] and [initial], after read_model_section. A defined model has no defaults:
// every parameter and every state must be given.
void read_parameters_and_initial(const TomlSection& root, SimulateSpec& config);

}  // namespace backsweep::detail
