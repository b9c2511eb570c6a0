// `simulate` and `gradient` on a PEtab problem (a .yaml file): its likelihood, chi2 and
// simulation table, and the gradient of its negative log-likelihood; with priors, of its
// negative unnormalized log-posterior.
#include "apps/petab_commands.hpp"

#include <cmath>
#include <fstream>
#include <memory>
#include <optional>

#include <nlohmann/json.hpp>

#include "apps/config_fit.hpp"
#include "apps/config_fit_engine.hpp"
#include "apps/error_report.hpp"
#include "apps/exit_codes.hpp"
#include "apps/load_config.hpp"
#include "apps/run_record.hpp"
#include "fit/parameter_prior.hpp"
#include "io/config/petab_fit.hpp"
#include "io/config/toml_reader.hpp"
#include "platform/output_set.hpp"
#include "solvers/method.hpp"
#include "solvers/context.hpp"

namespace backsweep::apps {

namespace {

struct LoadedPetab {
  PetabProblem problem;
  std::vector<std::size_t> rows;  // the fit's measurement k is the problem's rows[k]
  std::vector<std::optional<ParameterPrior>> priors;  // per FitConfig parameter
  FitConfig config;
};

// The problem and its fit, with the settings --set gives: solver.method, rtol, atol,
// max_steps, optimizer.gradient (auto, adjoint or tangent), and output.dir (--output-dir).
LoadedPetab load_petab(const ConfigFile& file) {
  const detail::TomlSection root(file);
  root.reject_unknown_keys({"output", "solver", "optimizer"});
  LoadedPetab loaded{read_petab_problem(file.path), {}, {}, {}};
  PetabFit fit = petab_fit_spec(loaded.problem);
  SimulateSpec& sim = fit.fit.simulate;
  if (const auto output = root.subsection("output")) {
    output->reject_unknown_keys({"dir"});
    sim.output_dir = output->string("dir", sim.output_dir);
  }
  if (const auto solver = root.subsection("solver")) {
    solver->reject_unknown_keys({"method", "rtol", "atol", "max_steps"});
    sim.method_name = solver->string("method", sim.method_name);
    const Method* method = find_method(sim.method_name);
    if (!method || !method->has_stepper() || !method->adaptive())
      solver->fail("method", "must be an adaptive method of backsweep's own (dopri5, tsit5, bs32, esdirk3, sdirk4)");
    sim.integrate.rtol = solver->number("rtol", sim.integrate.rtol);
    sim.integrate.atol = solver->number("atol", sim.integrate.atol);
    if (!(sim.integrate.rtol > 0.0)) solver->fail("rtol", "must be > 0");
    if (!(sim.integrate.atol >= 0.0)) solver->fail("atol", "must be >= 0");
    sim.integrate.max_steps = solver->count("max_steps", sim.integrate.max_steps);
    if (sim.integrate.max_steps == 0) solver->fail("max_steps", "must be at least 1");
  }
  fit.fit.gradient_mode = automatic_gradient_mode(sim.state_names.size(), sim.parameter_names.size());
  if (const auto optimizer = root.subsection("optimizer")) {
    optimizer->reject_unknown_keys({"gradient"});
    const auto mode = gradient_mode(optimizer->string("gradient", "auto"), sim.state_names.size(),
                                    sim.parameter_names.size());
    if (!mode) optimizer->fail("gradient", "must be auto, adjoint or tangent");
    fit.fit.gradient_mode = *mode;
  }
  loaded.rows = std::move(fit.rows);
  loaded.priors = std::move(fit.priors);
  loaded.config = assemble_fit(std::move(fit.fit));
  return loaded;
}

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

// The priors' terms at theta: log p of each estimated parameter that has a prior (of its
// value, or of its value on its scale), their sum, and the sum and gradient of those that
// are the objective's (format 2's implicit uniform priors are not).
struct PriorTerms {
  bool any = false;
  nlohmann::json each = nlohmann::json::object();
  double sum = 0.0, objective = 0.0;
  std::vector<double> gradient;
};
PriorTerms prior_terms(const LoadedPetab& loaded, const Scaled& scaled, const std::vector<double>& theta) {
  PriorTerms terms;
  terms.gradient.assign(theta.size(), 0.0);
  for (std::size_t i = 0; i < theta.size(); ++i) {
    const std::optional<ParameterPrior>& prior = loaded.priors[scaled.config_index[i]];
    if (!prior) continue;
    const EstimatedParameter& parameter = scaled.parameters[i];
    const double x = prior->on_scale ? theta[i] : parameter.to_value(theta[i]);
    const double value = log_prior(*prior, x);
    terms.any = true;
    terms.each[loaded.config.parameters[scaled.config_index[i]].name] = value;
    terms.sum += value;
    if (prior->implicit) continue;
    terms.objective += value;
    terms.gradient[i] = log_prior_slope(*prior, x) * (prior->on_scale ? 1.0 : parameter.slope(theta[i]));
  }
  return terms;
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

template <class Command>
int run_petab(const ConfigFile& file, CommandIO& io, Command command) {
  auto loaded = load_config(io.error, load_petab, file);
  if (!loaded) return kExitBadInput;
  Context context;
  loaded->config.simulate.integrate.context = &context;
  const Scaled scaled = scaled_parameters(loaded->config);
  const std::unique_ptr<FitEngine> fit = make_fit_engine(loaded->config, scaled);
  return command(*loaded, scaled, *fit, io);
}

}  // namespace

int run_petab_simulate(const ConfigFile& file, CommandIO& io) { return run_petab(file, io, petab_simulate); }
int run_petab_gradient(const ConfigFile& file, CommandIO& io) { return run_petab(file, io, petab_gradient); }

}  // namespace backsweep::apps
