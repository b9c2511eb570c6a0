#include "io/config/gradient_spec.hpp"

#include <algorithm>

#include "io/config/backends.hpp"
#include "io/config/checkpointing_section.hpp"
#include "io/config/config_file.hpp"
#include "io/config/config_sections.hpp"
#include "io/config/ensemble_section.hpp"
#include "io/config/detail/joined.hpp"
#include "io/config/expression_reader.hpp"
#include "io/config/shadowing_section.hpp"
#include "solvers/method.hpp"

namespace backsweep {

namespace {

using detail::read_formula;
using detail::TomlSection;

void read_objective(const TomlSection& root, const ExpressionScope& scope, GradientSpec& config) {
  const auto objective = root.subsection("objective");
  if (!objective) root.fail("objective", "the [objective] section is required by gradient");
  objective->reject_unknown_keys({"terminal", "integral", "observation"});
  if (objective->has("terminal"))
    config.terminal = read_formula(*objective, "terminal", scope);
  if (objective->has("integral"))
    config.integral = read_formula(*objective, "integral", scope);
  if (const toml::node* node = objective->table().get("observation")) {
    const toml::array* list = node->as_array();
    if (!list || !list->is_array_of_tables())
      objective->fail("observation", "must be an array of tables: [[objective.observation]]");
    for (const toml::node& item : *list) {
      const TomlSection entry(*item.as_table(), root.position("").file, "objective.observation");
      entry.reject_unknown_keys({"time", "formula"});
      const double t = entry.required_number("time");
      const IntegrateOptions& span = config.simulate.integrate;
      if (t < span.t0 || t > span.t1) entry.fail("time", "lies outside [time.start, time.end]");
      if (!entry.has("formula")) entry.fail("formula", "is required");
      config.observations.push_back({t, read_formula(entry, "formula", scope)});
    }
    std::stable_sort(config.observations.begin(), config.observations.end(),
                     [](const auto& a, const auto& b) { return a.time < b.time; });
  }
  if (!config.terminal && !config.integral && config.observations.empty())
    objective->fail("terminal", "give at least one of terminal, integral, observation");
}

void read_gradient(const TomlSection& root, GradientSpec& config) {
  if (root.has("shadowing") && !(root.subsection("gradient") &&
                                 root.subsection("gradient")->string("mode", "auto") == "shadowing"))
    root.fail_at_key("shadowing", "is read only with gradient.mode = \"shadowing\"");
  // On a grid, parameter fields are reported as fields: names are the scalars.
  const std::vector<std::string> names = config.simulate.scalar_parameter_names();
  for (std::size_t j = 0; j < names.size(); ++j) config.parameters.push_back(j);
  config.mode = automatic_gradient_mode(config.simulate.state_names.size(), names.size());
  // Without a stepper (CVODES), its own adjoint unless the tangent (its forward
  // sensitivities) is asked for by name: the tangent's Dual lanes need our stepper.
  const bool stepper = find_method(config.simulate.method_name)->has_stepper();
  // Off the cpu, a grid kernel's gradient is the adjoint (its tangent is host code), and
  // on cuda every model's.
  const bool on_backend = !find_backend(config.simulate.backend)->tangent(config.simulate.kind);
  if (!stepper || on_backend) config.mode = GradientMode::adjoint;
  const auto gradient = root.subsection("gradient");
  if (!gradient) return;
  gradient->reject_unknown_keys({"parameters", "initial", "mode"});
  if (const toml::node* node = gradient->table().get("parameters")) {
    const toml::array* list = node->as_array();
    if (!list) gradient->fail("parameters", "must be an array of parameter names");
    config.parameters.clear();
    for (const toml::node& item : *list) {
      const auto name = item.value<std::string>();
      const auto it = name ? std::find(names.begin(), names.end(), *name) : names.end();
      if (it == names.end())
        gradient->fail("parameters", "unknown parameter (this model has: " + detail::joined(names) + ")");
      config.parameters.push_back(std::size_t(it - names.begin()));
    }
  }
  if (gradient->has("initial")) {
    const auto value = gradient->table().get("initial")->value<bool>();
    if (!value) gradient->fail("initial", "must be true or false");
    config.initial = *value;
  }
  if (gradient->string("mode", "auto") == "shadowing") return detail::read_shadowing(root, config);
  const auto mode = gradient_mode(gradient->string("mode", "auto"), config.simulate.state_names.size(),
                                  names.size());
  if (!mode) gradient->fail("mode", "must be auto, adjoint, tangent or shadowing");
  if (on_backend && gradient->string("mode", "auto") == "auto") return;
  if (stepper || gradient->string("mode", "auto") == "tangent") config.mode = *mode;
  if (on_backend && config.mode == GradientMode::tangent)
    gradient->fail("mode", "tangent runs on the " + std::string(default_backend().name) +
                               " backend; solver.backend = \"" + config.simulate.backend + "\" takes the adjoint");
}

void read_monitor(const TomlSection& root, GradientSpec& config) {
  const auto section = root.subsection("monitor");
  if (!section) return;
  section->reject_unknown_keys({"tolerance", "growing_amplification", "windows"});
  MonitorOptions& monitor = config.monitor;
  monitor.tolerance = section->number("tolerance", monitor.tolerance);
  if (!(monitor.tolerance > 0.0 && monitor.tolerance < 1.0))
    section->fail("tolerance", "must lie between 0 and 1");
  monitor.growing_amplification =
      section->number("growing_amplification", monitor.growing_amplification);
  if (!(monitor.growing_amplification > 1.0 &&
        monitor.growing_amplification < 1.0 / monitor.tolerance))
    section->fail("growing_amplification", "must lie between 1 and 1/tolerance");
  monitor.windows = section->count("windows", monitor.windows);
  if (monitor.windows < 2) section->fail("windows", "must be at least 2");
}

}  // namespace

GradientSpec gradient_spec(const ConfigFile& file) {
  const TomlSection root(file);
  GradientSpec config;
  config.simulate = detail::read_simulate_sections(root);
  read_objective(root, expression_scope(config.simulate), config);
  read_gradient(root, config);
  config.checkpointing =
      detail::read_checkpointing(root, config.simulate.output_dir, config.simulate.initial_state.size());
  read_monitor(root, config);
  config.ensemble = detail::read_ensemble(root, config.simulate);
  const CheckpointOptions& checkpointing = config.checkpointing.options;
  if (config.ensemble && checkpointing.disk)
    throw ConfigError(config.checkpointing.disk_at, "checkpointing.disk",
                      "ensemble members keep their checkpoints in memory (they would share one disk file)");
  return config;
}

}  // namespace backsweep
