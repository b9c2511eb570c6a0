#include "apps/cuda_gradient.hpp"

#include <iostream>

#include "adjoint/discrete_adjoint.hpp"
#include "apps/config_problem.hpp"
#include "gpu/device_model.hpp"
#include "gpu/equations_device.hpp"
#include "models/builtin/grid_kernels.hpp"
#include "platform/printable.hpp"

namespace backsweep::apps {

namespace {

template <class M>
GradientResult<double> device_gradient(const GradientConfig& config, const M& model, const MonitorOptions& monitor,
                                       const std::vector<double>& y0, const std::vector<double>& p,
                                       const GradientObservers& observers, RunProgress* progress) {
  GradientResult<double> result;
  with_config_problem(config, model, monitor, y0, p, observers, progress, [&](const auto& problem) {
    result = gradient<double, gpu::ThrustAlgebra>(problem, problem.y0, problem.p, config.checkpointing.options);
  });
  return result;
}

}  // namespace

std::optional<GradientResult<double>> cuda_gradient(const GradientConfig& config, const MonitorOptions& monitor,
                                                    const std::vector<double>& y0, const std::vector<double>& p,
                                                    const GradientObservers& observers, RunProgress* progress,
                                                    KernelUse* kernels) {
  const SimulateConfig& sim = config.simulate;
  if (sim.grid_kernel)
    return device_gradient(config, gpu::on_device(*sim.grid_kernel), monitor, y0, p, observers, progress);
  CompilerOptions host;
  host.cache = sim.kernel_cache;
  std::optional<gpu::DeviceEquationModel> model;
  try {
    model.emplace(*sim.expression_model, gpu::cuda_compiler_options(host));
  } catch (const NativeLibraryError& error) {
    std::cerr << "backsweep: the equations run on the cpu backend, "
              << (sim.expression_model->compiled() ? "compiled" : "interpreted") << ": " << printable(error.what())
              << "\n";
    return std::nullopt;
  }
  if (kernels) *kernels = {"cuda", model->compile_seconds()};
  return device_gradient(config, *model, monitor, y0, p, observers, progress);
}

}  // namespace backsweep::apps
