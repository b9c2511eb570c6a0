#include "apps/petab_loaded.hpp"

#include "io/config/petab_fit.hpp"
#include "io/config/toml_reader.hpp"
#include "solvers/method.hpp"

namespace backsweep::apps {

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
  read_optimizer_section(root, fit.fit);
  loaded.rows = std::move(fit.rows);
  loaded.priors = std::move(fit.priors);
  loaded.config = assemble_fit(std::move(fit.fit));
  return loaded;
}

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

}  // namespace backsweep::apps
