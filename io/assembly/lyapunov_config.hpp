#pragma once
// A lyapunov config built for the engine (simulate_config.hpp), with the spectrum's options.
#include <string>

#include "adjoint/lyapunov_spectrum.hpp"
#include "io/assembly/simulate_config.hpp"
#include "io/config/lyapunov_spec.hpp"

namespace backsweep {

struct LyapunovConfig {
  SimulateConfig simulate;
  LyapunovOptions options;
};

// By value: time.end is added to the file's document (moved in, it keeps its lines).
LyapunovConfig lyapunov_config(ConfigFile file);

}  // namespace backsweep
