#include "io/assembly/gradient_config.hpp"

#include <utility>

#include "io/config/config_file.hpp"
#include "io/config/expression_reader.hpp"

namespace backsweep {

GradientConfig assemble_gradient(GradientSpec spec) {
  GradientConfig config;
  static_cast<GradientSettings&>(config) = std::move(static_cast<GradientSettings&>(spec));
  config.simulate = assemble_simulate(std::move(spec.simulate));
  config.scope = expression_scope(config.simulate);
  if (spec.terminal) config.terminal = parse_formula(*spec.terminal, config.scope);
  if (spec.integral) config.integral = parse_formula(*spec.integral, config.scope);
  for (const ObservationSpec& o : spec.observations)
    config.observations.push_back({o.time, parse_formula(o.formula, config.scope)});
  return config;
}

GradientConfig load_gradient_config(const std::string& path) { return gradient_config(read_config_file(path)); }

GradientConfig gradient_config(const ConfigFile& file) { return assemble_gradient(gradient_spec(file)); }

}  // namespace backsweep
