#include "apps/config_gradient.hpp"

#include "adjoint/discrete_adjoint.hpp"
#include "apps/backend_gradient.hpp"
#include "apps/config_problem.hpp"
#include "io/assembly/visit_model.hpp"

namespace backsweep::apps {

GradientResult<double> config_gradient(const GradientConfig& config, const MonitorOptions& monitor,
                                       const std::vector<double>& y0, const std::vector<double>& p,
                                       const GradientObservers& observers, RunProgress* progress) {
  const SimulateConfig& sim = config.simulate;
  if (config.mode == GradientMode::tangent)
    return config_tangent_gradient(config, monitor, y0, p, observers, progress);
  if (sim.backend == "omp" && sim.grid_kernel) return thrust_gradient(config, monitor, y0, p, observers, progress);
  GradientResult<double> result;
  visit_model(sim, [&](const auto& model) {
    with_config_problem(config, model, monitor, y0, p, observers, progress, [&](const auto& problem) {
      result = gradient<double>(problem, problem.y0, problem.p, config.checkpointing.options);
    });
  });
  return result;
}

}  // namespace backsweep::apps
