// The forward-tangent gradients of config models: apart from config_gradient.cpp, so the
// engine's instantiations for every config model compile in two pieces, side by side.
#include "apps/config_gradient.hpp"

#include "adjoint/forward_tangent.hpp"
#include "io/config_objective.hpp"
#include "io/visit_model.hpp"

namespace backsweep::apps {

GradientResult<double> config_tangent_gradient(const GradientConfig& config, const MonitorOptions& monitor,
                                               const std::vector<double>& y0, const std::vector<double>& p,
                                               const GradientObservers& observers, RunProgress* progress) {
  const SimulateConfig& sim = config.simulate;
  GradientResult<double> result;
  visit_model(sim, [&](const auto& model) {
    visit_config_objective(config, [&](auto objective) {
      using M = std::remove_cvref_t<decltype(model)>;
      objective.initial.numbers = &y0;
      GradientProblem<M, decltype(objective)> problem{model, sim.method, y0, p, objective, sim.integrate, monitor};
      problem.forward_observer = observers.forward;
      problem.integrate.progress = progress;
      result = tangent_gradient(problem);
    });
  });
  return result;
}

}  // namespace backsweep::apps
