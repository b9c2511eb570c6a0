// `fit` on a PEtab problem: a config's fit of parameters (fit_command.cpp) with the
// problem's priors in the objective and its box within their supports, standard errors
// from the objective's Hessian, the parameter table written back with the estimates, and
// the llh at the optimum.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>

#include "apps/error_report.hpp"
#include "apps/fit_command.hpp"
#include "apps/petab_commands.hpp"
#include "apps/petab_loaded.hpp"
#include "io/config/detail/petab_table.hpp"

namespace backsweep::apps {

namespace {

// The problem's parameter tables as one (the first table's columns), each estimated
// parameter's nominalValue its estimate.
void write_parameter_table(const std::string& path, const PetabProblem& problem,
                           const std::map<std::string, double>& estimates) {
  std::vector<std::string> files;
  for (const PetabParameter& p : problem.parameters)
    if (std::find(files.begin(), files.end(), p.at.file) == files.end()) files.push_back(p.at.file);
  std::ofstream out(path);
  out.precision(17);
  std::vector<std::string> columns;
  for (const std::string& file : files) {
    const detail::PetabTable table(file, "the parameter table");
    if (columns.empty()) {
      columns = table.columns();
      for (std::size_t c = 0; c < columns.size(); ++c) out << (c ? "\t" : "") << columns[c];
      out << '\n';
    }
    for (std::size_t r = 0; r < table.rows(); ++r) {
      const auto estimate = estimates.find(table.text(r, "parameterId"));
      for (std::size_t c = 0; c < columns.size(); ++c) {
        out << (c ? "\t" : "");
        if (columns[c] == "nominalValue" && estimate != estimates.end()) out << estimate->second;
        else out << table.text(r, columns[c]);
      }
      out << '\n';
    }
  }
  if (!out) throw std::runtime_error("cannot write " + path);
}

// A value on `scale` in linear space.
double linear(ParameterScale scale, double x) {
  return scale == ParameterScale::log10 ? std::pow(10.0, x) : scale == ParameterScale::log ? std::exp(x) : x;
}

int petab_fit(LoadedPetab& loaded, CommandIO& io) {
  // The fit stays where the priors are positive (a uniform prior on [2, 8] inside bounds
  // [0, 10]): its box and its starts.
  for (std::size_t k = 0; k < loaded.priors.size(); ++k)
    if (const std::optional<ParameterPrior>& prior = loaded.priors[k]) {
      FitParameter& p = loaded.config.parameters[k];
      const PriorSupport support = prior_support(*prior);
      const ParameterScale scale = prior->on_scale ? p.scale : ParameterScale::lin;
      p.lower = std::max(p.lower, linear(scale, support.lower));
      p.upper = std::min(p.upper, linear(scale, support.upper));
    }
  const FitConfig& config = loaded.config;
  const Scaled scaled = scaled_parameters(config);
  for (std::size_t i = 0; i < scaled.parameters.size(); ++i)
    if (!std::isfinite(scaled.lower[i]) || !std::isfinite(scaled.upper[i])) {
      const std::string& id = config.parameters[scaled.config_index[i]].name;
      const PetabParameter* p = loaded.problem.find_parameter(id);
      report_error(io.error, ConfigError(p ? p->at : SourcePosition{loaded.problem.file}, "upperBound",
                                         "'" + id + "': a fit's starts spread over the bounds, which must be finite")
                                 .what());
      return kExitBadInput;
    }
  const auto priors = [&](const std::vector<double>& theta) { return prior_terms(loaded, scaled, theta); };
  FitExtras extras;
  extras.penalty = [&](const std::vector<double>& theta, std::vector<double>& gradient) {
    const PriorTerms terms = priors(theta);
    for (std::size_t i = 0; i < gradient.size(); ++i) gradient[i] = -terms.gradient[i];
    return -terms.objective;
  };
  extras.hessian_information = true;
  const auto estimates = [&](const std::vector<double>& best) {
    std::map<std::string, double> values;
    for (std::size_t i = 0; i < best.size(); ++i)
      values[config.parameters[scaled.config_index[i]].name] = scaled.parameters[i].to_value(best[i]);
    return values;
  };
  extras.write_files = [&](const std::string& folder, const std::vector<double>& best) {
    write_parameter_table((std::filesystem::path(folder) / "parameters.tsv").string(), loaded.problem, estimates(best));
  };
  extras.conclude = [&](nlohmann::json& out, const std::vector<double>& best) {
    const PriorTerms terms = priors(best);
    const double llh = -(out["objective"].get<double>() + terms.objective);  // the objective: -llh - log priors
    io.text() << "llh " << llh << (terms.any ? "  log prior " + std::to_string(terms.sum) : std::string()) << "  ("
              << config.simulate.output_dir << "/parameters.tsv)\n";
    out["llh"] = llh;
    if (terms.any) out["log_prior"] = terms.each;
  };
  return fit_model(config, io, extras);
}

}  // namespace

int run_petab_fit(const ConfigFile& file, CommandIO& io) {
  auto loaded = load_config(io.error, load_petab, file);
  if (!loaded) return kExitBadInput;
  Context context;
  loaded->config.simulate.integrate.context = &context;
  return petab_fit(*loaded, io);
}

}  // namespace backsweep::apps
