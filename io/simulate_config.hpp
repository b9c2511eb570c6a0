#pragma once
// The part of a backsweep config file that `simulate` reads: [model], [parameters],
// [initial], [time], [solver], [output] (docs/config.md documents every key).
#include <string>
#include <vector>

#include "solvers/integrate_options.hpp"

namespace backsweep {

struct SimulateConfig {
  std::string file;                    // the config file it came from
  std::string model;                   // built-in model name
  std::vector<std::string> state_names, parameter_names;
  std::vector<double> parameters, initial_state;
  std::string method;                  // a tableau name, see find_tableau
  IntegrateOptions integrate;
  std::string output_dir;              // relative to the working directory
};

// Reads and validates a config file. Throws ConfigError (file, line, key) on any problem.
SimulateConfig load_simulate_config(const std::string& path);

}  // namespace backsweep
