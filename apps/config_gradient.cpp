#include "apps/config_gradient.hpp"

#include "apps/backend_gradient.hpp"

#include "adjoint/discrete_adjoint.hpp"
#include "adjoint/forward_tangent.hpp"
#include "io/config_objective.hpp"
#include "io/visit_model.hpp"

namespace backsweep::apps {

GradientResult<double> config_gradient(const GradientConfig& config, const MonitorOptions& monitor,
                                       const std::vector<double>& y0, const std::vector<double>& p,
                                       const std::function<void(double, const double*)>& adjoint_observer,
                                       RunProgress* progress) {
  const SimulateConfig& sim = config.simulate;
  if (sim.backend == "omp" && sim.grid_kernel) return thrust_gradient(config, monitor, y0, p, adjoint_observer, progress);
  GradientResult<double> result;
  visit_model(sim, [&](const auto& model) {
    visit_config_objective(config, [&](auto objective) {
      using M = std::remove_cvref_t<decltype(model)>;
      using Obj = decltype(objective);
      objective.initial.numbers = &y0;
      GradientProblem<M, Obj> problem{model, sim.method, y0, p, objective, sim.integrate, monitor};
      problem.adjoint_observer = adjoint_observer;
      problem.integrate.progress = progress;
      result = config.mode == GradientMode::tangent
                   ? tangent_gradient(problem)
                   : gradient<double>(problem, problem.y0, problem.p, config.checkpointing.options);
    });
  });
  return result;
}

}  // namespace backsweep::apps
