// A simulate config's solve for one model kind (apps/engine_of.hpp).
#include "adjoint/stiffness.hpp"
#include "apps/engine_of.hpp"
#include "apps/engine_of/model_kind.hpp"
#include "solvers/solve.hpp"

namespace backsweep::apps {

template <Model M>
IntegrateResult simulate_of(const M& model, const SimulateConfig& config, const IntegrateOptions& options,
                            Trajectory& trajectory, std::optional<StiffnessEstimate>& stiffness) {
  std::vector<double> y = config.initial_state;
  const double* p = config.parameters.data();
  const auto append = [&](double t, const double* state) { trajectory.append(t, state); };
  if (!config.method.is_explicit()) return solve_forward(model, config.method, y.data(), p, options, append);
  StiffnessProbe probe(model, real_stability_limit(*config.method.tableau));
  const IntegrateResult result =
      solve_forward(model, config.method, y.data(), p, options, append,
                    [&](const StepInterval& step, const double* next) { probe.after_step(step.t_next, step.h, next, p); });
  stiffness = probe.estimate();
  return result;
}

template IntegrateResult simulate_of(const ModelKind&, const SimulateConfig&, const IntegrateOptions&, Trajectory&,
                                     std::optional<StiffnessEstimate>&);

}  // namespace backsweep::apps
