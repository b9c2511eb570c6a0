// The shadowing gradient of a gradient config for one model kind (apps/engine_of.hpp).
#include "adjoint/shadowing.hpp"
#include "adjoint/shadowing_adjoint.hpp"
#include "apps/engine_of.hpp"
#include "apps/engine_of/model_kind.hpp"
#include "io/assembly/config_objective.hpp"

namespace backsweep::apps {

template <Model M>
ShadowingResult shadowing_of(const M& model, const GradientConfig& config, const ShadowingOptions& options,
                             bool adjoint_sweep) {
  const SimulateConfig& sim = config.simulate;
  return adjoint_sweep ? shadowing_adjoint_gradient(model, sim.method, sim.initial_state, sim.parameters,
                                                    ConfigRunning{&config}, config.parameters, options)
                       : shadowing_gradient(model, sim.method, sim.initial_state, sim.parameters,
                                            ConfigRunning{&config}, config.parameters, options);
}

template ShadowingResult shadowing_of(const ModelKind&, const GradientConfig&, const ShadowingOptions&, bool);

}  // namespace backsweep::apps
