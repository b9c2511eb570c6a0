#pragma once
// What `lyapunov` reads: the model sections of simulate, a fixed-step [solver] (or a
// CVODES method with its tolerances), and
// [lyapunov] (docs/config.md). The run starts at time.start and lasts
// lyapunov.transient + lyapunov.duration; time.end and the output times belong to the
// other commands and are not used.
#include <string>

#include "adjoint/lyapunov_spectrum.hpp"
#include "io/config/config_file.hpp"
#include "io/config/simulate_spec.hpp"

namespace backsweep {

struct LyapunovSpec {
  SimulateSpec simulate;
  LyapunovOptions options;  // t0, step (CVODES: lyapunov.interval) and tolerances from [time] and [solver]
};

LyapunovSpec lyapunov_spec(ConfigFile file);

}  // namespace backsweep
