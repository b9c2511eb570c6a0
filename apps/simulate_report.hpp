#pragma once
// The sinks `simulate` feeds its trajectory to besides trajectory.{csv,h5}
// (io/outputs/trajectory.hpp): the --json object and, on a grid, the VTK states.
#include "apps/command_io.hpp"
#include <string>

#include <nlohmann/json.hpp>

#include "io/assembly/simulate_config.hpp"
#include "io/outputs/trajectory.hpp"

namespace backsweep::apps {

// A trajectory with the config's names and no states yet: on a grid the fields by name
// and the scalar parameters (the parameter fields go to the VTK states).
Trajectory empty_trajectory(const SimulateConfig& config);

// {"times", "states": {name: column}}, or on a grid {"times", "fields": {name: its range
// at the last time}} (the fields themselves are in trajectory.h5).
nlohmann::json simulate_json(const Trajectory& trajectory, const GridLayout* fields);

// Kept for the Python module: "times", and each state's column ("states/x") or on a
// grid each field at every output time ("fields/u", shaped [times, *grid]).
void keep_trajectory_arrays(const Trajectory& trajectory, CommandIO& io);

// states.pvd in `folder`: the fields at every output time, with the parameter fields.
void write_state_fields(const std::string& folder, const SimulateConfig& config, const Trajectory& trajectory);

}  // namespace backsweep::apps
