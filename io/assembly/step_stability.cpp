#include "io/assembly/step_stability.hpp"

#include <iostream>
#include <sstream>

#include "adjoint/stiffness.hpp"
#include "io/assembly/visit_model.hpp"
#include "io/config/config_error.hpp"
#include "solvers/step_grid.hpp"

namespace backsweep {

namespace {

constexpr double kNear = 0.9;  // from here, said; from 1, refused

}  // namespace

void check_step_stability(const SimulateConfig& config) {
  const IntegrateOptions& options = config.integrate;
  if (!config.method.is_explicit() || !(options.step > 0.0)) return;
  // The steps taken: no longer than solver.step, shorter where output times come close.
  const double h = FixedGrid(options).largest_step();
  double ratio = 0.0;
  visit_model(config, [&](const auto& model) {
    ratio = stability_ratio(model, *config.method.tableau, options.t0, config.initial_state.data(),
                            config.parameters.data(), h);
  });
  if (!(ratio >= kNear)) return;
  const double beta = real_stability_limit(*config.method.tableau), rho = ratio * beta / h;
  std::ostringstream text;
  text.precision(3);
  text << "h rho(J) / beta = " << ratio << " at the start (rho(J) >= " << rho << ", beta = " << beta << " for "
       << config.method.name() << ")";
  if (ratio < 1.0) {
    std::cerr << "backsweep: warning: " << config.file << ": solver.step = " << options.step
              << " is near the explicit method's stability limit: " << text.str() << "\n";
    return;
  }
  text << ": the explicit method is unstable at this step and the run would blow up; take step < "
       << 0.9 * beta / rho << ", an implicit method (sdirk2, esdirk3, sdirk4, cvodes_bdf) or adaptive steps (rtol, atol)";
  throw ConfigError(config.step_at, "solver.step", text.str());
}

}  // namespace backsweep
