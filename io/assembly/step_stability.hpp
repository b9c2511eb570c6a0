#pragma once
// Before a run: an explicit method's fixed steps against its stability limit, at the start
// (h rho(J) / beta at t0, the initial state and the parameters, h the longest step taken;
// adjoint/stiffness.hpp's stability_ratio, which leaves growing modes alone).
// From 1 on the run would blow up, having spent its time: refused at solver.step. Near it
// (the estimate is a lower bound, a few percent under on grids) one line on stderr says so.
#include "io/assembly/simulate_config.hpp"

namespace backsweep {

// Throws ConfigError at solver.step where the step is unstable at the start.
void check_step_stability(const SimulateConfig& config);

}  // namespace backsweep
