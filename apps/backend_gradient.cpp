#include "apps/backend_gradient.hpp"

#include <stdexcept>

#if BACKSWEEP_OPENMP_BUILT
#include "adjoint/discrete_adjoint.hpp"
#include "gpu/device_model.hpp"
#include "apps/config_problem.hpp"
#endif

namespace backsweep::apps {

GradientResult<double> omp_gradient(const GradientConfig& config, const MonitorOptions& monitor,
                                    const std::vector<double>& y0, const std::vector<double>& p,
                                    const GradientObservers& observers, RunProgress* progress) {
#if BACKSWEEP_OPENMP_BUILT
  const SimulateConfig& sim = config.simulate;
  if (sim.expression_model) return omp_equations_gradient(config, monitor, y0, p, observers, progress);
  GradientResult<double> result;
  const auto model = gpu::on_device(*sim.grid_kernel);
  with_config_problem(config, model, monitor, y0, p, observers, progress, [&](const auto& problem) {
    result = gradient<double, gpu::ThrustAlgebra>(problem, problem.y0, problem.p, config.checkpointing.options);
  });
  return result;
#else
  (void)config, (void)monitor, (void)y0, (void)p, (void)observers, (void)progress;
  throw std::logic_error("omp_gradient: this build has no OpenMP backend");
#endif
}

}  // namespace backsweep::apps
