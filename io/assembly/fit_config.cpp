#include "io/assembly/fit_config.hpp"

#include <utility>

#include "io/config/config_file.hpp"
#include "io/config/expression_reader.hpp"

namespace backsweep {

FitConfig assemble_fit(FitSpec spec) {
  FitConfig config;
  static_cast<FitSettings&>(config) = std::move(static_cast<FitSettings&>(spec));
  config.simulate = assemble_simulate(std::move(spec.simulate));
  const ExpressionScope scope = expression_scope(config.simulate);
  for (const ObservableSpec& o : spec.observables) config.observables.push_back({o.name, parse_formula(o.formula, scope)});
  return config;
}

FitConfig load_fit_config(const std::string& path) { return fit_config(read_config_file(path)); }

FitConfig fit_config(const ConfigFile& file) { return assemble_fit(fit_spec(file)); }

}  // namespace backsweep
