// The forward-tangent gradient of a gradient config for one model kind (apps/engine_of.hpp).
#include "adjoint/forward_tangent.hpp"
#include "apps/config_problem.hpp"
#include "apps/engine_of.hpp"
#include "apps/engine_of/model_kind.hpp"

namespace backsweep::apps {

template <Model M>
GradientResult<double> tangent_gradient_of(const M& model, const GradientConfig& config, const MonitorOptions& monitor,
                                           const std::vector<double>& y0, const std::vector<double>& p,
                                           const GradientObservers& observers, RunProgress* progress) {
  GradientResult<double> result;
  with_config_problem(config, model, monitor, y0, p, observers, progress,
                      [&](const auto& problem) { result = tangent_gradient(problem); });
  return result;
}

template GradientResult<double> tangent_gradient_of(const ModelKind&, const GradientConfig&, const MonitorOptions&,
                                                    const std::vector<double>&, const std::vector<double>&,
                                                    const GradientObservers&, RunProgress*);

}  // namespace backsweep::apps
