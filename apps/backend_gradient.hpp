#pragma once
// The gradient of a hand-written grid model on the Thrust backend (solver.backend =
// "omp"): the fields, parameter fields and checkpoints stay in the backend's memory for
// the whole sweep, and the device kernels (gpu/) do the model's work. Only
// backend_gradient.cpp sees Thrust.
#include <vector>

#include "adjoint/gradient_problem.hpp"
#include "apps/config_gradient.hpp"
#include "io/assembly/gradient_config.hpp"

namespace backsweep::apps {

// As config_gradient, for a config whose model is a grid kernel (sim.grid_kernel), in
// adjoint mode. Throws std::logic_error in a build without the OpenMP backend (configs
// asking for it are refused when read).
GradientResult<double> thrust_gradient(const GradientConfig& config, const MonitorOptions& monitor,
                                       const std::vector<double>& y0, const std::vector<double>& p,
                                       const GradientObservers& observers, RunProgress* progress);

}  // namespace backsweep::apps
