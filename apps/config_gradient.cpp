#include "apps/config_gradient.hpp"

#include "adjoint/discrete_adjoint.hpp"
#include "apps/backend_gradient.hpp"
#include "io/config_objective.hpp"
#include "io/visit_model.hpp"

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
    visit_config_objective(config, [&](auto objective) {
      using M = std::remove_cvref_t<decltype(model)>;
      objective.initial.numbers = &y0;
      GradientProblem<M, decltype(objective)> problem{model, sim.method, y0, p, objective, sim.integrate, monitor};
      problem.forward_observer = observers.forward;
      problem.adjoint_observer = observers.adjoint;
      problem.integrate.progress = progress;
      result = gradient<double>(problem, problem.y0, problem.p, config.checkpointing.options);
    });
  });
  return result;
}

}  // namespace backsweep::apps
