// `backsweep fit` on parameter fields: L-BFGS-B on the misfit plus regularisation, with
// the fitted fields, the misfit's gradient and its adjoint fields for ParaView.
#include <cmath>
#include <iostream>

#include <nlohmann/json.hpp>

#include "apps/config_fit.hpp"
#include "apps/config_fit_engine.hpp"
#include "apps/error_report.hpp"
#include "apps/exit_codes.hpp"
#include "apps/field_fit_report.hpp"
#include "apps/field_outputs.hpp"
#include "apps/command_io.hpp"
#include "apps/run_record.hpp"
#include "platform/interrupt.hpp"
#include "platform/output_set.hpp"
#include "platform/ranks.hpp"

namespace backsweep::apps {

// A fit of parameter fields: L-BFGS-B from the prior fields on the misfit plus the
// fields' regularisation. Writes fit.h5 (with /parameter_fields), the CSV files, and VTK:
// fit.pvd (each field fitted, its prior, and the misfit's gradient at the fit) and the
// misfit's adjoint fields at the fit, adjoint.pvd (adjoint_<experiment>.pvd with several;
// adjoint gradients only).
int run_field_fit(const FitConfig& config, CommandIO& io) {
  const SimulateConfig& sim = config.simulate;
  const GridLayout& fields = *sim.fields();
  const Grid& grid = fields.grid();
  const Scaled scaled = scaled_parameters(config);
  std::vector<std::unique_ptr<FitEngine>> fits;  // one start
  fits.push_back(make_fit_engine(config, scaled));
  FitEngine& fit = *fits[0];
  if (ranks::count() > 1) io.split = "experiments";  // DataFit spreads them
  print_fit_plan(config, scaled, "values (parameter fields point by point)", "L-BFGS-B from the prior fields");
  const FitObjective misfit_of = [&](const std::vector<double>& theta, std::vector<double>& gradient) {
    stop_if_interrupted();  // Ctrl-C (the Python module); one start, on this thread
    std::string failure;
    return fit.evaluate(theta, gradient, failure);
  };
  const FieldPenalty penalty_of = field_penalty(config, scaled);
  const MultistartResult runs{
      {fit_fields(misfit_of, penalty_of, scaled.nominal, scaled.lower, scaled.upper, config.optimizer, print_progress)},
      0};
  const StartResult& best = runs.starts[0];
  if (!std::isfinite(best.objective)) return all_starts_failed(config, fits, io.error);

  // At the fit: the misfit, its gradient and adjoint fields, and the predictions.
  const FieldTimes times(sim);
  std::vector<std::vector<FieldSnapshot>> adjoints(config.experiments.size());
  fit.observe_adjoint([&](std::size_t e, double t, const double* lambda) {
    if (const auto k = times.index(t))
      adjoints[e].push_back({times.times()[*k], renamed(split_fields(fields.fields(), lambda, grid.points()), adjoint_name)});
  });
  std::vector<double> misfit_gradient, unused(scaled.parameters.size(), 0.0);
  std::string failure;
  const double misfit = fit.evaluate(best.x, misfit_gradient, failure);
  fit.observe_adjoint(nullptr);
  const double penalty = penalty_of(best.x, unused);
  FitReport report = base_report(config, runs);
  if (!std::isfinite(misfit) || !fit.predict(best.x, report.predictions, failure) ||
      !fit.trajectories(best.x, report, failure)) {
    report_error(io.error, sim.file, ": at the fit: ", failure);
    return kExitRunFailed;
  }
  report.sigmas = fit.sigmas();
  if (config.estimate_sigma) report.estimated_sigma = fit.profiled_sigma();
  report.grid_shape = grid.shape();
  report.parameter_fields = estimated_fields(config, [&](std::size_t i) {
    return scaled.parameters[i].to_value(best.x[i]);
  });
  const std::vector<NamedField> priors = estimated_fields(config, [&](std::size_t i) {
    return scaled.parameters[i].to_value(scaled.nominal[i]);
  });
  const std::vector<NamedField> gradients = estimated_fields(config, [&](std::size_t i) {
    return misfit_gradient[i] / scaled.parameters[i].slope(best.x[i]);
  });

  io.text() << "fit: objective " << best.objective << " = misfit " << misfit << " + regularisation "
                       << penalty << " (" << best.reason << ", " << best.iterations << " iterations)\n";
  warn_unless_converged(best);
  report_parameters(config, scaled, best.x, {}, true, report);  // no Fisher information beside a field
  print_parameters(report, false, io);
  print_estimated_sigma(config, fit.profiled_sigma(), io);
  const nlohmann::json parameter_fields = field_summaries_json(report, priors);
  print_field_summaries(report, parameter_fields, io);
  if (io.writes_outputs()) try {
    OutputSet outputs(sim.output_dir);
    write_fit_files(report, outputs.staging().string(), io.run);
    write_field_fit_vtk(outputs.staging().string(), config, report, priors, gradients, std::move(adjoints));
    commit_outputs(outputs, "fit", io.run);
  } catch (const std::exception& error) {
    report_error(io.error, error.what());
    return kExitRunFailed;
  }
  io.finish(field_fit_json(report, best, misfit, penalty, parameter_fields));
  return kExitOk;
}

}  // namespace backsweep::apps
