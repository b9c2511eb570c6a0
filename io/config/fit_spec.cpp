#include "io/config/fit_spec.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <optional>
#include <utility>

#include "io/config/checkpointing_section.hpp"
#include "io/config/config_file.hpp"
#include "io/config/config_sections.hpp"
#include "io/config/expression_reader.hpp"
#include "io/config/detail/joined.hpp"

namespace backsweep {

namespace {

using detail::TomlSection;

using detail::joined;

// The entries of an array of tables [[name]]; empty when absent.
std::vector<TomlSection> table_array(const TomlSection& root, std::string_view name) {
  std::vector<TomlSection> entries;
  const toml::node* node = root.table().get(name);
  if (!node) return entries;
  const toml::array* list = node->as_array();
  if (!list || !list->is_array_of_tables())
    root.fail(name, "must be an array of tables: [[" + std::string(name) + "]]");
  for (const toml::node& item : *list)
    entries.emplace_back(*item.as_table(), root.position("").file, std::string(name));
  return entries;
}

std::size_t index_of(const TomlSection& section, std::string_view key,
                     const std::vector<std::string>& names, const char* what) {
  if (!section.has(key)) section.fail(key, "is required");
  const std::string name = section.string(key, "");
  const auto it = std::find(names.begin(), names.end(), name);
  if (it == names.end())
    section.fail(key, std::string("unknown ") + what + " '" + name + "' (known: " + joined(names) + ")");
  return std::size_t(it - names.begin());
}

// The index of the first value of parameter field `name` in the model's parameters.
std::optional<std::size_t> parameter_field_index(const SimulateSpec& sim, const std::string& name) {
  const GridLayout* fields = sim.fields();
  if (!fields) return std::nullopt;
  const auto& names = fields->parameter_fields();
  const auto it = std::find(names.begin(), names.end(), name);
  if (it == names.end()) return std::nullopt;
  return fields->scalar_parameters() + std::size_t(it - names.begin()) * fields->grid().points();
}

// [regularization.<field>]: tikhonov, h1, tv (weights >= 0), tv_epsilon, reference
// ("prior": the field [parameters] gives, or a number).
void read_regularization(const TomlSection& root, const SimulateSpec& sim, FitParameter& p) {
  const auto all = root.subsection("regularization");
  if (!all) return;
  const auto section = all->subsection(p.name);
  if (!section) return;
  section->reject_unknown_keys({"tikhonov", "h1", "tv", "tv_epsilon", "reference"});
  FieldRegularization& r = p.regularization;
  for (auto [key, weight] : {std::pair{"tikhonov", &r.tikhonov}, {"h1", &r.h1}, {"tv", &r.tv}}) {
    *weight = section->number(key, 0.0);
    if (!(*weight >= 0.0)) section->fail(key, "must be a weight >= 0");
  }
  r.tv_epsilon = section->number("tv_epsilon", r.tv_epsilon);
  if (!(r.tv_epsilon > 0.0)) section->fail("tv_epsilon", "must be > 0");
  const auto* prior = sim.parameters.data() + p.index;
  r.reference.assign(prior, prior + p.points);
  if (section->has("reference") && !section->table().get("reference")->is_string())
    r.reference.assign(p.points, section->required_number("reference"));
  else if (section->string("reference", "prior") != "prior")
    section->fail("reference", "must be \"prior\" (the field [parameters] gives) or a number");
}

void read_estimates(const TomlSection& root, FitSpec& config) {
  const SimulateSpec& sim = config.simulate;
  const std::vector<TomlSection> entries = table_array(root, "estimate");
  if (entries.empty()) root.fail("estimate", "a fit needs at least one [[estimate]] table");
  for (const TomlSection& entry : entries) {
    entry.reject_unknown_keys({"name", "lower", "upper", "scale", "estimate"});
    FitParameter p;
    const std::string name = entry.string("name", "");
    if (const auto field = parameter_field_index(sim, name)) {
      p.index = *field;
      p.field = true;
      p.points = sim.fields()->grid().points();
      p.name = name;
    } else {
      p.index = index_of(entry, "name", sim.parameter_names, "parameter");
      p.name = sim.parameter_names[p.index];
    }
    for (const FitParameter& other : config.parameters)
      if (p.index < other.index + other.points && other.index < p.index + p.points)
        entry.fail("name", other.name == p.name
                               ? "'" + p.name + "' is estimated twice"
                               : "'" + p.name + "' is estimated already, as part of '" + other.name + "'");
    p.nominal = sim.parameters[p.index];
    p.lower = entry.required_number("lower");
    p.upper = entry.required_number("upper");
    if (!(p.lower < p.upper)) entry.fail("upper", "must be greater than lower");
    const std::string scale = entry.string("scale", "lin");
    if (scale != "lin" && scale != "log10") entry.fail("scale", "must be lin or log10");
    p.scale = scale == "log10" ? ParameterScale::log10 : ParameterScale::lin;
    if (p.scale == ParameterScale::log10 && !(p.lower > 0.0)) entry.fail("lower", "must be > 0 with scale = \"log10\"");
    for (std::size_t i = p.index; i < p.index + p.points; ++i)
      if (sim.parameters[i] < p.lower || sim.parameters[i] > p.upper)
        entry.fail("lower", "the nominal value " + std::to_string(sim.parameters[i]) + " of '" +
                                sim.parameter_names[i] + "' lies outside [lower, upper]");
    if (entry.has("estimate")) {
      const auto flag = entry.table().get("estimate")->value<bool>();
      if (!flag) entry.fail("estimate", "must be true or false");
      p.estimate = *flag;
    }
    if (p.field) read_regularization(root, sim, p);
    config.parameters.push_back(p);
  }
  if (std::none_of(config.parameters.begin(), config.parameters.end(),
                   [](const FitParameter& p) { return p.estimate; }))
    root.fail("estimate", "no parameter has estimate = true");
  if (const auto all = root.subsection("regularization"))
    for (auto&& entry : all->table()) {
      const std::string name(entry.first.str());  // not a structured binding: clang 14 cannot capture one
      if (std::none_of(config.parameters.begin(), config.parameters.end(),
                       [&](const FitParameter& p) { return p.field && p.name == name; }))
        all->fail_at_key(name, "regularises parameter fields that are estimated: add [[estimate]] name = \"" + name +
                                   "\" for a parameter field");
    }
}

void read_observables(const TomlSection& root, FitSpec& config) {
  const std::vector<TomlSection> entries = table_array(root, "observables");
  if (entries.empty()) root.fail("observables", "a fit needs at least one [[observables]] table");
  const ExpressionScope scope = expression_scope(config.simulate);
  for (const TomlSection& entry : entries) {
    entry.reject_unknown_keys({"name", "formula"});
    if (!entry.has("name")) entry.fail("name", "is required");
    const std::string name = entry.string("name", "");
    if (name.empty()) entry.fail("name", "must not be empty");
    for (const ObservableSpec& other : config.observables)
      if (other.name == name) entry.fail("name", "observable '" + name + "' is defined twice");
    if (!entry.has("formula")) entry.fail("formula", "is required");
    ObservableSpec& observable = config.observables.emplace_back();
    observable.name = name;
    observable.formula = detail::read_formula(entry, "formula", scope);
  }
}

// Overrides `values` from an inline table of name = number, and marks them.
void read_overrides(const TomlSection& entry, std::string_view key,
                    const std::vector<std::string>& names, std::vector<double>& values,
                    std::vector<bool>& overridden, const char* what) {
  const auto table = entry.subsection(key);
  if (!table) return;
  for (auto&& [name, node] : table->table()) {
    const auto it = std::find(names.begin(), names.end(), name.str());
    if (it == names.end())
      table->fail(name.str(), std::string("unknown ") + what + " (known: " + joined(names) + ")");
    values[std::size_t(it - names.begin())] = table->required_number(name.str());
    overridden[std::size_t(it - names.begin())] = true;
  }
}

void read_experiments(const TomlSection& root, FitSpec& config) {
  const SimulateSpec& sim = config.simulate;
  const std::vector<TomlSection> entries = table_array(root, "experiments");
  const std::vector<bool> none(sim.state_names.size(), false);
  if (entries.empty()) {
    config.experiments.push_back({"default", sim.initial_state, sim.parameters, none, {}, {}, {}, {}, {}});
    return;
  }
  for (const TomlSection& entry : entries) {
    entry.reject_unknown_keys({"id", "initial", "parameters"});
    if (!entry.has("id")) entry.fail("id", "is required");
    FitExperimentConfig experiment{entry.string("id", ""), sim.initial_state, sim.parameters, none, {}, {}, {}, {}, {}};
    if (experiment.id.empty()) entry.fail("id", "must not be empty");
    for (const auto& other : config.experiments)
      if (other.id == experiment.id) entry.fail("id", "experiment '" + experiment.id + "' is defined twice");
    std::vector<bool> parameters_overridden(sim.parameter_names.size(), false);
    read_overrides(entry, "initial", sim.state_names, experiment.initial_state,
                   experiment.initial_overridden, "state");
    read_overrides(entry, "parameters", sim.parameter_names, experiment.parameters,
                   parameters_overridden, "parameter");
    if (const auto overrides = entry.subsection("parameters"))
      for (const FitParameter& p : config.parameters)
        if (p.estimate && overrides->has(p.name))
          overrides->fail(p.name, "is estimated, so an experiment cannot fix it");
    config.experiments.push_back(experiment);
  }
}

void read_settings(const TomlSection& root, FitSpec& config) {
  if (const auto noise = root.subsection("noise")) {
    noise->reject_unknown_keys({"model", "sigma"});
    if (noise->string("model", "gaussian") != "gaussian") noise->fail("model", "must be gaussian");
    const std::string sigma = noise->string("sigma", "data");
    if (sigma != "data" && sigma != "estimate") noise->fail("sigma", "must be data or estimate");
    config.estimate_sigma = sigma == "estimate";
  }
  read_optimizer_section(root, config);
  config.checkpointing =
      detail::read_checkpointing(root, config.simulate.output_dir, config.simulate.initial_state.size());
}

void read_data(const TomlSection& root, FitSpec& config) {
  const auto data = root.subsection("data");
  if (!data) root.fail("data", "a fit needs [data] with measurements = \"file.csv\"");
  data->reject_unknown_keys({"measurements"});
  if (!data->has("measurements")) data->fail("measurements", "is required");
  const std::string file = data->string("measurements", "");
  if (file.empty()) data->fail("measurements", "must not be empty");
  const std::filesystem::path relative_to = std::filesystem::path(config.simulate.file).parent_path();
  config.measurements_path = (relative_to / file).lexically_normal().string();
  std::error_code error;
  if (std::filesystem::is_directory(config.measurements_path, error))
    data->fail("measurements", "is a directory, not a CSV file: " + config.measurements_path);
  if (!std::filesystem::is_regular_file(config.measurements_path, error))
    data->fail("measurements", (std::filesystem::exists(config.measurements_path, error) ? "is not a regular file: "
                                                                                           : "no such file: ") +
                                   config.measurements_path);
  MeasurementRules rules;
  for (const auto& o : config.observables) rules.observables.push_back(o.name);
  for (const auto& e : config.experiments) rules.experiments.push_back(e.id);
  rules.t0 = config.simulate.integrate.t0;
  rules.t1 = config.simulate.integrate.t1;
  rules.sigma_required = !config.estimate_sigma;
  config.measurements = read_measurements_csv(config.measurements_path, rules);
}

}  // namespace

void read_optimizer_section(const detail::TomlSection& root, FitSpec& config) {
  config.gradient_mode = automatic_gradient_mode(config.simulate.state_names.size(),
                                                 config.simulate.parameter_names.size());
  if (estimates_field(config)) config.optimizer.starts = 1;
  if (const auto optimizer = root.subsection("optimizer")) {
    optimizer->reject_unknown_keys(
        {"method", "max_iterations", "gradient_tolerance", "starts", "seed", "gradient"});
    if (optimizer->string("method", "lbfgsb") != "lbfgsb") optimizer->fail("method", "must be lbfgsb");
    OptimizerOptions& o = config.optimizer;
    o.max_iterations = optimizer->count("max_iterations", o.max_iterations);
    if (o.max_iterations == 0) optimizer->fail("max_iterations", "must be at least 1");
    o.gradient_tolerance = optimizer->number("gradient_tolerance", o.gradient_tolerance);
    if (!(o.gradient_tolerance > 0.0)) optimizer->fail("gradient_tolerance", "must be > 0");
    o.starts = optimizer->count("starts", o.starts);
    if (o.starts == 0 || o.starts > 10000) optimizer->fail("starts", "must be between 1 and 10000");
    if (o.starts > 1 && estimates_field(config))
      optimizer->fail("starts", "must be 1 when a parameter field is estimated: its fit starts from the field "
                                "[parameters] gives");
    o.seed = optimizer->count("seed", o.seed);
    const auto mode = gradient_mode(optimizer->string("gradient", "auto"),
                                    config.simulate.state_names.size(),
                                    config.simulate.parameter_names.size());
    if (!mode) optimizer->fail("gradient", "must be auto, adjoint or tangent");
    config.gradient_mode = *mode;
  }
}

FitSpec fit_spec(const ConfigFile& file) {
  const TomlSection root(file);
  FitSpec config;
  config.simulate = detail::read_simulate_sections(root);
  if (root.has("ensemble"))
    root.fail("ensemble", "is for gradient configs with an [objective]; a fit starts from [optimizer] starts");
  read_estimates(root, config);
  read_observables(root, config);
  read_experiments(root, config);
  read_settings(root, config);
  read_data(root, config);
  return config;
}

bool estimates_field(const FitSettings& config) {
  return std::any_of(config.parameters.begin(), config.parameters.end(),
                     [](const FitParameter& p) { return p.estimate && p.field; });
}

}  // namespace backsweep
