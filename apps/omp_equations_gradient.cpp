#include "apps/backend_gradient.hpp"

#include <stdexcept>

#if BACKSWEEP_OPENMP_BUILT
#include "adjoint/discrete_adjoint.hpp"
#include "apps/config_problem.hpp"
#include "solvers/openmp_algebra.hpp"
#endif

namespace backsweep::apps {

GradientResult<double> omp_equations_gradient(const GradientConfig& config, const MonitorOptions& monitor,
                                              const std::vector<double>& y0, const std::vector<double>& p,
                                              const GradientObservers& observers, RunProgress* progress) {
#if BACKSWEEP_OPENMP_BUILT
  GradientResult<double> result;
  with_config_problem(config, *config.simulate.expression_model, monitor, y0, p, observers, progress,
                      [&](const auto& problem) {
                        result = gradient<double, OpenMpAlgebra>(problem, problem.y0, problem.p,
                                                                 config.checkpointing.options);
                      });
  return result;
#else
  (void)config, (void)monitor, (void)y0, (void)p, (void)observers, (void)progress;
  throw std::logic_error("omp_equations_gradient: this build has no OpenMP backend");
#endif
}

}  // namespace backsweep::apps
