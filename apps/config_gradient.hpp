#pragma once
// The gradient a gradient config asks for (its model, objective, mode and checkpointing),
// at given initial numbers and parameters: the config's own, or an ensemble member's.
// One translation unit holds the engine's instantiations for every config model.
#include <functional>
#include <vector>

#include "adjoint/gradient_problem.hpp"
#include "io/gradient_config.hpp"

namespace backsweep::apps {

// y0: the initial numbers ([initial] expressions are evaluated at p). adjoint_observer as
// in GradientProblem (adjoint mode); progress as in IntegrateOptions. Thread-safe:
// members may run in parallel.
GradientResult<double> config_gradient(const GradientConfig& config, const MonitorOptions& monitor,
                                       const std::vector<double>& y0, const std::vector<double>& p,
                                       const std::function<void(double, const double*)>& adjoint_observer = {},
                                       RunProgress* progress = nullptr);

}  // namespace backsweep::apps
