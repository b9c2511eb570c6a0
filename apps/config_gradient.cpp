#include "apps/config_gradient.hpp"

#include "apps/backend_gradient.hpp"
#include "apps/engine_of.hpp"
#include "apps/grid_split_gradient.hpp"
#if BACKSWEEP_CUDA_BUILT
#include "apps/cuda_gradient.hpp"
#endif
#include "io/assembly/visit_model.hpp"
#include "io/config/backends.hpp"

namespace backsweep::apps {

GradientResult<double> config_gradient(const GradientConfig& config, const MonitorOptions& monitor,
                                       const std::vector<double>& y0, const std::vector<double>& p,
                                       const GradientObservers& observers, RunProgress* progress,
                                       KernelUse* kernels) {
  const SimulateConfig& sim = config.simulate;
  if (config.mode == GradientMode::tangent)
    return config_tangent_gradient(config, monitor, y0, p, observers, progress);
  if (splits_grid(config)) return split_grid_gradient(config, monitor, y0, p, observers, progress);
  const BackendAlgebra algebra = find_backend(sim.backend)->algebra;
  if (algebra == BackendAlgebra::thrust_omp && (sim.fields() || sim.expression_model))
    return omp_gradient(config, monitor, y0, p, observers, progress);
#if BACKSWEEP_CUDA_BUILT
  if (algebra == BackendAlgebra::thrust_cuda)
    if (auto result = cuda_gradient(config, monitor, y0, p, observers, progress, kernels)) return *std::move(result);
#else
  (void)kernels;
#endif
  GradientResult<double> result;
  visit_model(sim, [&](const auto& model) {
    result = adjoint_gradient_of(model, config, monitor, y0, p, observers, progress);
  });
  return result;
}

GradientResult<double> config_tangent_gradient(const GradientConfig& config, const MonitorOptions& monitor,
                                               const std::vector<double>& y0, const std::vector<double>& p,
                                               const GradientObservers& observers, RunProgress* progress) {
  GradientResult<double> result;
  visit_model(config.simulate, [&](const auto& model) {
    result = tangent_gradient_of(model, config, monitor, y0, p, observers, progress);
  });
  return result;
}

}  // namespace backsweep::apps
