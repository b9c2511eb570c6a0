#include "apps/config_fit_engine.hpp"

#include <cmath>
#include <iostream>

#include "apps/error_report.hpp"
#include "apps/exit_codes.hpp"
#include "apps/engine_of.hpp"
#include "apps/parallel_members.hpp"
#include "io/config/backends.hpp"
#include "io/assembly/visit_model.hpp"

namespace backsweep::apps {

std::string describe_failure(const FitConfig& config, const FitSolveFailure& failure) {
  return "experiment '" + config.experiments[failure.experiment].id + "': " +
         (failure.nonfinite ? failure.nonfinite->describe(config.simulate.state_names) : failure.message);
}

std::unique_ptr<FitEngine> make_fit_engine(const FitConfig& config, const Scaled& scaled) {
  std::unique_ptr<FitEngine> engine;
  visit_model(config.simulate, [&](const auto& model) {
    engine = fit_engine_of(model, config, scaled);
  });
  if (find_backend(config.simulate.backend)->parallel_runs)  // backend omp: experiments a thread each
    engine->run_experiments([](std::size_t count, const std::function<void(std::size_t)>& work) {
      for_each_member(count, true, work);
    }, members_at_once());
  return engine;
}

bool report_monitors(const FitEngine& fit, const std::vector<double>& x, FitReport& report, std::string& failure) {
  const std::unique_ptr<FitEngine> at_fit = fit.clone();  // the fit's own state stays as it is
  std::vector<double> gradient;
  if (std::isnan(at_fit->evaluate(x, gradient, failure))) return false;
  const std::vector<std::optional<GrowthReport>>& monitors = at_fit->monitors();
  report.monitors = monitors;
  for (std::size_t e = 0; e < monitors.size(); ++e) {
    if (monitors[e] && monitors[e]->verdict != GrowthVerdict::stable)
      std::cerr << "warning: at the fit, the " << to_string(monitors[e]->watched) << " monitor of experiment '"
                << report.experiment_ids[e] << "' says " << to_string(monitors[e]->verdict) << ": "
                << monitors[e]->explanation << '\n';
  }
  return true;
}

int all_starts_failed(const FitConfig& config, const std::vector<std::unique_ptr<FitEngine>>& fits,
                      ErrorReport& report) {
  for (const auto& fit : fits) {
    if (const auto& refused = fit->refused()) {
      report_error(report, config.checkpointing.refusal_error(*refused));
      return kExitBadInput;
    }
    if (!fit->invalid_options().empty()) {  // e.g. a store_all that cannot fit in memory
      report_error(report, config.simulate.file, ": ", fit->invalid_options());
      return kExitBadInput;
    }
  }
  std::string where;  // the latest failure: its experiment, and where the NaN appeared
  for (const auto& fit : fits)
    if (const auto& failure = fit->last_failure()) where = "; the last failed solve, " + describe_failure(config, *failure);
  report_error(report, config.simulate.file, ": the objective failed from every start", where);
  return kExitRunFailed;
}

}  // namespace backsweep::apps
