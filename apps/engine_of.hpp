#pragma once
// The engine's entries for one model kind: what each command runs on the model a config
// names. Each is declared here for any Model and defined in a file of apps/engine_of/,
// which apps/CMakeLists.txt compiles once per kind in io/assembly/visit_model.hpp's
// ModelKinds: every (entry × kind) is a translation unit of its own, compiled once
// whichever commands reach it. A command calls them from visit_model's visitor.
#include <memory>
#include <optional>
#include <vector>

#include "adjoint/gradient_problem.hpp"
#include "adjoint/lyapunov_spectrum.hpp"
#include "adjoint/shadowing.hpp"
#include "adjoint/stiffness.hpp"
#include "apps/config_fit_engine.hpp"
#include "apps/config_gradient.hpp"
#include "io/assembly/lyapunov_config.hpp"
#include "io/outputs/trajectory.hpp"

namespace backsweep::apps {

// The adjoint gradient of a gradient config (engine_of/adjoint_gradient.cpp).
template <Model M>
GradientResult<double> adjoint_gradient_of(const M& model, const GradientConfig& config, const MonitorOptions& monitor,
                                           const std::vector<double>& y0, const std::vector<double>& p,
                                           const GradientObservers& observers, RunProgress* progress);

// The same by the forward tangent (engine_of/tangent_gradient.cpp).
template <Model M>
GradientResult<double> tangent_gradient_of(const M& model, const GradientConfig& config, const MonitorOptions& monitor,
                                           const std::vector<double>& y0, const std::vector<double>& p,
                                           const GradientObservers& observers, RunProgress* progress);

// A fit config's FitEngine (engine_of/fit_engine.cpp).
template <Model M>
std::unique_ptr<FitEngine> fit_engine_of(const M& model, const FitConfig& config, const Scaled& scaled);

// A simulate config's solve into `trajectory`; explicit methods also estimate stiffness
// along the run (engine_of/simulate.cpp).
template <Model M>
IntegrateResult simulate_of(const M& model, const SimulateConfig& config, const IntegrateOptions& options,
                            Trajectory& trajectory, std::optional<StiffnessEstimate>& stiffness);

// The Lyapunov spectrum from the config's initial state and parameters (engine_of/lyapunov.cpp).
template <Model M>
LyapunovResult lyapunov_of(const M& model, const SimulateConfig& config, const LyapunovOptions& options);

// The shadowing gradient of objective.integral's average, by the adjoint or the tangent
// sweep (engine_of/shadowing.cpp).
template <Model M>
ShadowingResult shadowing_of(const M& model, const GradientConfig& config, const ShadowingOptions& options,
                             bool adjoint_sweep);

}  // namespace backsweep::apps
