// omp_gradient's half for equations (backend_gradient.hpp), defined where the OpenMP
// backend is built: omp_gradient calls it only there.
#include "apps/backend_gradient.hpp"

#if BACKSWEEP_OPENMP_BUILT
#include "adjoint/discrete_adjoint.hpp"
#include "apps/config_problem.hpp"
#include "solvers/openmp_algebra.hpp"

namespace backsweep::apps {

GradientResult<double> omp_equations_gradient(const GradientConfig& config, const MonitorOptions& monitor,
                                              const std::vector<double>& y0, const std::vector<double>& p,
                                              const GradientObservers& observers, RunProgress* progress) {
  GradientResult<double> result;
  with_config_problem(config, *config.simulate.expression_model, monitor, y0, p, observers, progress,
                      [&](const auto& problem) {
                        result = gradient<double, OpenMpAlgebra>(problem, problem.y0, problem.p,
                                                                 config.checkpointing.options);
                      });
  return result;
}

}  // namespace backsweep::apps
#endif
