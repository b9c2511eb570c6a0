#pragma once
// Readers of a config whose model lives on a grid: [grid], [model] with fields,
// parameter fields and equations with stencil operators, [parameters] (numbers, or
// expressions of the coordinates for parameter fields) and [initial] (fields as numbers
// or expressions of the coordinates, the parameters and other fields).
#include "io/config/toml_reader.hpp"
#include "io/config/simulate_spec.hpp"

namespace backsweep::detail {

// When the config has [grid]: reads it and [model] into config (the layout, and the
// equations or the grid kernel's name; state_names and parameter_names per point,
// "u[3,4]") and returns true.
bool read_grid_model(const TomlSection& root, SimulateSpec& config);

// [parameters] and [initial] of a grid model: every scalar, parameter field and field
// must be given.
void read_grid_parameters_and_initial(const TomlSection& root, SimulateSpec& config);

}  // namespace backsweep::detail
