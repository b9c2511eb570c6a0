// The forward-tangent gradients of config models: apart from config_gradient.cpp, so the
// engine's instantiations for every config model compile in two pieces, side by side.
#include "apps/config_gradient.hpp"

#include "adjoint/forward_tangent.hpp"
#include "apps/config_problem.hpp"
#include "io/assembly/visit_model.hpp"

namespace backsweep::apps {

GradientResult<double> config_tangent_gradient(const GradientConfig& config, const MonitorOptions& monitor,
                                               const std::vector<double>& y0, const std::vector<double>& p,
                                               const GradientObservers& observers, RunProgress* progress) {
  GradientResult<double> result;
  visit_model(config.simulate, [&](const auto& model) {
    with_config_problem(config, model, monitor, y0, p, observers, progress,
                        [&](const auto& problem) { result = tangent_gradient(problem); });
  });
  return result;
}

}  // namespace backsweep::apps
