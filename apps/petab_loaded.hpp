#pragma once
// A PEtab problem as the commands run it (petab_commands.cpp, petab_fit_command.cpp): its
// tables, its fit with the settings --set gives, its priors' terms, and the run of a
// command on its fit engine at the problem's parameters.
#include <cstddef>
#include <memory>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "apps/command_io.hpp"
#include "apps/config_fit.hpp"
#include "apps/config_fit_engine.hpp"
#include "apps/exit_codes.hpp"
#include "apps/load_config.hpp"
#include "fit/parameter_prior.hpp"
#include "io/assembly/fit_config.hpp"
#include "io/config/config_file.hpp"
#include "io/config/petab_problem.hpp"
#include "solvers/context.hpp"

namespace backsweep::apps {

struct LoadedPetab {
  PetabProblem problem;
  std::vector<std::size_t> rows;  // the fit's measurement k is the problem's rows[k]
  std::vector<std::optional<ParameterPrior>> priors;  // per FitConfig parameter
  FitConfig config;
};

// The problem and its fit, with the settings --set gives: solver.method, rtol, atol,
// max_steps, the optimizer's keys as for configs, and output.dir (--output-dir).
LoadedPetab load_petab(const ConfigFile& file);

// The priors' terms at theta: log p of each estimated parameter that has a prior (of its
// value, or of its value on its scale), their sum, and the sum and gradient of those that
// are the objective's (format 2's implicit uniform priors are not).
struct PriorTerms {
  bool any = false;
  nlohmann::json each = nlohmann::json::object();
  double sum = 0.0, objective = 0.0;
  std::vector<double> gradient;
};
PriorTerms prior_terms(const LoadedPetab& loaded, const Scaled& scaled, const std::vector<double>& theta);

// `command(loaded, scaled, fit engine, io)` on the problem `file` names; exit 2 where it
// cannot be read.
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

}  // namespace backsweep::apps
