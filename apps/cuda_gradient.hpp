#pragma once
// The gradient of a config on the CUDA backend (solver.backend = "cuda"): a hand-written
// grid model's device kernels (gpu/), or equations on a grid built as CUDA kernels at run
// time (gpu/equations_device.hpp). The fields, parameter fields and checkpoints stay on
// the GPU for the whole sweep. Only cuda_gradient.cu sees CUDA; it is built where
// BACKSWEEP_CUDA is on.
#include <optional>
#include <vector>

#include "adjoint/gradient_problem.hpp"
#include "apps/config_gradient.hpp"
#include "io/assembly/gradient_config.hpp"
#include "io/outputs/diagnostics_record.hpp"

namespace backsweep::apps {

// As config_gradient, in adjoint mode. Equations' kernels that cannot be built (no GPU,
// no nvcc, a failed build) leave one line on stderr and nothing: the caller runs the cpu
// backend. `kernels`, where given, says how equations ran and what building them took.
std::optional<GradientResult<double>> cuda_gradient(const GradientConfig& config, const MonitorOptions& monitor,
                                                    const std::vector<double>& y0, const std::vector<double>& p,
                                                    const GradientObservers& observers, RunProgress* progress,
                                                    KernelUse* kernels);

}  // namespace backsweep::apps
