// `simulate` and `gradient` on a PEtab problem (a .yaml file): its likelihood, chi2 and
// simulation table, and the gradient of its negative log-likelihood; with priors, of its
// negative unnormalized log-posterior.
#include "apps/petab_commands.hpp"

#include <cmath>
#include <fstream>

#include <nlohmann/json.hpp>

#include "apps/error_report.hpp"
#include "apps/petab_loaded.hpp"
#include "apps/run_record.hpp"
#include "platform/output_set.hpp"

namespace backsweep::apps {

namespace {

std::string semicolon_joined(const std::vector<std::string>& values) {
  std::string text;
  for (const std::string& v : values) text += (text.empty() ? "" : ";") + v;
  return text;
}

// PEtab's simulation table: the measurement table's rows with `simulation` in place of
// `measurement`.
void write_simulations(const std::string& path, const PetabProblem& problem, const std::vector<double>& simulation) {
  std::ofstream out(path);
  const bool v2 = problem.format == 2;
  out << "observableId\t" << (v2 ? "experimentId" : "simulationConditionId\tpreequilibrationConditionId")
      << "\ttime\tsimulation\tobservableParameters\tnoiseParameters\n";
  out.precision(17);
  for (std::size_t r = 0; r < problem.measurements.size(); ++r) {
    const PetabMeasurement& m = problem.measurements[r];
    out << m.observable << '\t' << (v2 ? m.experiment : m.condition + '\t' + m.preequilibration) << '\t' << m.time
        << '\t' << simulation[r] << '\t' << semicolon_joined(m.observable_parameters) << '\t' << semicolon_joined(m.noise_parameters)
        << '\n';
  }
  if (!out) throw std::runtime_error("cannot write " + path);
}

// Each command runs the problem's fit engine at the nominal point.
int petab_simulate(const LoadedPetab& loaded, const Scaled& scaled, FitEngine& fit, CommandIO& io) {
  const FitConfig& config = loaded.config;
  std::vector<double> rows;
  std::string failure;
  if (!fit.predict_rows(scaled.nominal, rows, failure)) {
    report_error(io.error, config.simulate.file, ": the simulation failed: ", failure);
    return kExitRunFailed;
  }
  double nllh = 0.0, chi2 = 0.0;
  std::vector<double> simulation(loaded.problem.measurements.size(), NAN);
  for (std::size_t k = 0; k < loaded.rows.size(); ++k) {
    simulation[loaded.rows[k]] = rows[3 * k];
    nllh += rows[3 * k + 1];
    chi2 += rows[3 * k + 2] * rows[3 * k + 2];
  }
  if (io.writes_outputs()) try {
    OutputSet outputs(config.simulate.output_dir);
    write_simulations((outputs.staging() / "simulations.tsv").string(), loaded.problem, simulation);
    commit_outputs(outputs, "simulate", io.run);
  } catch (const std::exception& error) {
    report_error(io.error, error.what());
    return kExitRunFailed;
  }
  const PriorTerms priors = prior_terms(loaded, scaled, scaled.nominal);
  io.text() << "llh " << -nllh << "  chi2 " << chi2;
  if (priors.any) io.text() << "  log prior " << priors.sum;
  io.text() << "  (" << simulation.size() << " measurements; " << config.simulate.output_dir << "/simulations.tsv)\n";
  nlohmann::json out = {{"llh", -nllh}, {"chi2", chi2}, {"objective", nllh - priors.objective}, {"simulations", simulation}};
  if (priors.any) {
    out["log_prior"] = priors.each;
    out["unnorm_log_posterior"] = -nllh + priors.sum;
  }
  io.finish(std::move(out));
  return kExitOk;
}

int petab_gradient(const LoadedPetab& loaded, const Scaled& scaled, FitEngine& fit, CommandIO& io) {
  const FitConfig& config = loaded.config;
  std::vector<double> gradient;
  std::string failure;
  const double value = fit.evaluate(scaled.nominal, gradient, failure);
  if (!std::isfinite(value)) {
    report_error(io.error, config.simulate.file, ": the gradient failed: ", failure);
    return fit.invalid_options().empty() ? kExitRunFailed : kExitBadInput;
  }
  const PriorTerms priors = prior_terms(loaded, scaled, scaled.nominal);
  for (std::size_t i = 0; i < gradient.size(); ++i) gradient[i] -= priors.gradient[i];
  io.text() << "llh " << -value;
  if (priors.any) io.text() << "  log prior " << priors.sum;
  io.text() << " (" << to_string(config.gradient_mode) << ")\n";
  io.finish({{"llh", -value},
             {"objective", value - priors.objective},
             {"gradient", print_gradient(config, scaled, gradient, io)},
             {"gradient_mode", to_string(config.gradient_mode)}});
  return kExitOk;
}

}  // namespace

int run_petab_simulate(const ConfigFile& file, CommandIO& io) { return run_petab(file, io, petab_simulate); }
int run_petab_gradient(const ConfigFile& file, CommandIO& io) { return run_petab(file, io, petab_gradient); }

}  // namespace backsweep::apps
