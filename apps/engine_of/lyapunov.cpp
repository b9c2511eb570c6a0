// The Lyapunov spectrum of a config's model for one model kind (apps/engine_of.hpp).
#include "adjoint/lyapunov_spectrum.hpp"
#include "apps/engine_of.hpp"
#include "apps/engine_of/model_kind.hpp"

namespace backsweep::apps {

template <Model M>
LyapunovResult lyapunov_of(const M& model, const SimulateConfig& config, const LyapunovOptions& options) {
  return lyapunov_spectrum(model, config.method, config.initial_state, config.parameters, options);
}

template LyapunovResult lyapunov_of(const ModelKind&, const SimulateConfig&, const LyapunovOptions&);

}  // namespace backsweep::apps
