#pragma once
// The gradient a gradient config asks for (its model, objective, mode and checkpointing),
// at given initial numbers and parameters: the config's own, or an ensemble member's.
// The engine's instantiations for each model kind are apps/engine_of.hpp's.
#include <functional>
#include <vector>

#include "adjoint/gradient_problem.hpp"
#include "io/assembly/gradient_config.hpp"
#include "io/outputs/diagnostics_record.hpp"

namespace backsweep::apps {

// What a gradient shows on the way, as GradientProblem's forward_observer and
// adjoint_observer (the adjoint's in adjoint mode only).
struct GradientObservers {
  std::function<void(double t, const double* y)> forward;
  std::function<void(double t, const double* lambda)> adjoint;
};

// y0: the initial numbers ([initial] expressions are evaluated at p); progress as in
// IntegrateOptions; `kernels`, where given, is set where equations ran as kernels built
// for a device (backend cuda). Thread-safe: members may run in parallel.
GradientResult<double> config_gradient(const GradientConfig& config, const MonitorOptions& monitor,
                                       const std::vector<double>& y0, const std::vector<double>& p,
                                       const GradientObservers& observers = {}, RunProgress* progress = nullptr,
                                       KernelUse* kernels = nullptr);

// The same in tangent mode, whatever the config's mode.
GradientResult<double> config_tangent_gradient(const GradientConfig& config, const MonitorOptions& monitor,
                                               const std::vector<double>& y0, const std::vector<double>& p,
                                               const GradientObservers& observers, RunProgress* progress);

}  // namespace backsweep::apps
