#include "io/config/model_sections.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <utility>

#include "io/config/expression_reader.hpp"
#include "io/config/grid_sections.hpp"
#include "io/config/detail/joined.hpp"
#include "io/config/sbml_model.hpp"
#include "models/builtin/grid_kernels.hpp"
#include "models/builtin/registry.hpp"

namespace backsweep::detail {

namespace {

// The names declared so far (t first), to refuse a clash where it is written.
class DeclaredNames {
 public:
  DeclaredNames() { names_.add_segment({"t"}); }
  std::optional<std::string> problem_with(const std::string& name) const {
    if (name == "t") return std::string("'t' is the time variable");
    return names_.problem_with(name);
  }
  void add(const std::string& name) { names_.add_constant(name, 0.0); }  // only the name counts

 private:
  ExpressionScope names_;
};

// model.<key>: an array of new names.
std::vector<std::string> read_names(const TomlSection& model, std::string_view key,
                                    DeclaredNames& declared) {
  std::vector<std::string> names = model.string_array(key).value_or(std::vector<std::string>{});
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (auto problem = declared.problem_with(names[i])) model.fail_entry(key, i, *problem);
    declared.add(names[i]);
  }
  return names;
}

// [model.constants]: name = number.
std::vector<NamedConstant> read_constants(const TomlSection& model, DeclaredNames& declared) {
  std::vector<NamedConstant> constants;
  const auto section = model.subsection("constants");
  if (!section) return constants;
  for (auto&& [key, node] : section->table()) {
    const std::string name(key.str());
    if (auto problem = declared.problem_with(name)) section->fail_at_key(name, *problem);
    declared.add(name);
    constants.push_back({name, section->required_number(name)});
  }
  return constants;
}

void read_builtin_model(const TomlSection& model, SimulateSpec& config) {
  config.model = model.string("name", "");
  config.model_points = model.count("points", 0);
  if (model.has("points") && config.model_points == 0) model.fail("points", "must be at least 1");
  if (config.model_points > (std::size_t{1} << 26)) model.fail("points", "must be at most 2^26");
  const bool found = models::visit_builtin_model(config.model, config.model_points, [&](const auto& m) {
    using M = std::remove_cvref_t<decltype(m)>;
    if (model.has("points") && !models::GridBuiltinModel<M>)
      model.fail("points", "model '" + config.model + "' has a fixed size; points is for grid models");
    config.state_names = models::state_names_of(m);
    config.parameter_names.assign(m.param_names.begin(), m.param_names.end());
    config.parameters.assign(m.default_params.begin(), m.default_params.end());
    config.initial_state = models::default_initial_of(m);
  });
  const auto& grid_models = models::grid_kernel_names;
  if (!found && std::find(grid_models.begin(), grid_models.end(), config.model) != grid_models.end())
    model.fail("name", "'" + config.model + "' is a grid model: give its [grid] (shape, extent, boundary)");
  if (!found)
    model.fail("name", "unknown model '" + config.model + "' (built-in models: " +
                           joined(models::builtin_model_names) + "; on a [grid]: " + joined(grid_models) + ")");
}

// One equation per state: [model.equations] S = "-beta*S*I".
std::vector<Formula> read_equations(const TomlSection& model, const SimulateSpec& config) {
  const auto section = model.subsection("equations");
  if (!section) model.fail("equations", "is required: one equation per state, in [model.equations]");
  const std::vector<std::string>& states = config.state_names;
  for (auto&& [key, node] : section->table())
    if (std::find(states.begin(), states.end(), key.str()) == states.end())
      section->fail_at_key(key.str(), "is not a state (model.states: " + joined(states) + ")");
  const ExpressionScope scope = expression_scope(config);
  std::vector<Formula> equations;
  for (const std::string& state : states) {
    if (!section->has(state))
      section->fail(state, "is required: the equation of state '" + state + "' (d" + state + "/dt)");
    equations.push_back(read_formula(*section, state, scope));
  }
  return equations;
}

void read_defined_model(const TomlSection& model, SimulateSpec& config,
                        DeclaredNames& declared) {
  config.model = "expression";
  config.kind = ModelKind::equations;
  if (!model.has("states")) model.fail("states", "is required (or model.name, a built-in model)");
  config.state_names = read_names(model, "states", declared);
  if (config.state_names.empty()) model.fail("states", "must list at least one state");
  config.parameter_names = read_names(model, "parameters", declared);
  config.parameters.assign(config.parameter_names.size(), NAN);     // no defaults
  config.initial_state.assign(config.state_names.size(), NAN);
}

// model.sbml: the model an SBML file defines, its parameters' values and initial state
// given there ([parameters] and [initial] may change them), its events beside [[events]].
void read_sbml_section(const TomlSection& model, SimulateSpec& config, DeclaredNames& declared) {
  for (std::string_view key : {"name", "states", "parameters", "equations", "points"})
    if (model.has(key)) model.fail(key, "give either model.sbml or the model's " + std::string(key) + ", not both");
  const std::string name = model.string("sbml", "");
  if (name.empty()) model.fail("sbml", "must name an SBML file");
  std::filesystem::path path(name);
  if (path.is_relative()) path = std::filesystem::path(config.file).parent_path() / path;
  if (!std::filesystem::is_regular_file(path)) model.fail("sbml", "no such file: " + path.string());
  SbmlModel sbml = read_sbml_model(path.string());
  if (sbml.state_names.empty())
    model.fail("sbml", "the model has no species, compartment or parameter that changes: nothing to simulate");
  config.model = "expression";
  config.kind = ModelKind::equations;
  config.sbml_file = path.string();
  config.state_names = std::move(sbml.state_names);
  config.parameter_names = std::move(sbml.parameter_names);
  config.parameters = std::move(sbml.parameters);
  for (const auto& names : {config.state_names, config.parameter_names})
    for (const std::string& n : names) declared.add(n);
  config.constants = read_constants(model, declared);
  const ExpressionScope scope = expression_scope(config);
  for (const Formula& equation : sbml.equations) parse_formula(equation, scope);  // refused at its element
  config.equations = std::move(sbml.equations);
  config.initial_formulas.assign(sbml.initial.begin(), sbml.initial.end());
  config.events = std::move(sbml.events);
}

}  // namespace

void read_model_section(const TomlSection& root, SimulateSpec& config) {
  if (read_grid_model(root, config)) return;
  const auto model = root.subsection("model");
  if (!model) root.fail("model", "the [model] section is required");
  model->reject_unknown_keys({"name", "points", "states", "parameters", "equations", "constants", "sbml"});
  DeclaredNames declared;
  if (model->has("sbml")) return read_sbml_section(*model, config, declared);
  if (model->has("name")) {
    for (std::string_view key : {"states", "parameters", "equations"})
      if (model->has(key))
        model->fail(key, "give either model.name (a built-in model) or the model's states, "
                         "parameters and equations, not both");
    read_builtin_model(*model, config);
    for (const auto& name : config.state_names) declared.add(name);
    for (const auto& name : config.parameter_names) declared.add(name);
    config.constants = read_constants(*model, declared);
    return;
  }
  if (model->has("points")) model->fail("points", "is for built-in grid models (model.name)");
  if (!model->has("states") && !model->has("equations"))
    model->fail("name", "is required: name a built-in model, or define one with states, "
                        "parameters and [model.equations]");
  read_defined_model(*model, config, declared);
  config.constants = read_constants(*model, declared);
  config.equations = read_equations(*model, config);
}

void read_parameters_and_initial(const TomlSection& root, SimulateSpec& config) {
  if (config.fields()) return read_grid_parameters_and_initial(root, config);
  const bool defined = config.kind == ModelKind::equations && config.sbml_file.empty();
  const auto parameters = root.subsection("parameters");
  if (parameters) {
    for (auto&& [key, node] : parameters->table()) {
      const auto& names = config.parameter_names;
      const auto it = std::find(names.begin(), names.end(), key.str());
      if (it == names.end())
        parameters->fail(key.str(), "unknown parameter (this model has: " + joined(names) + ")");
      config.parameters[std::size_t(it - names.begin())] = parameters->required_number(key.str());
    }
  }
  if (defined)
    for (const std::string& name : config.parameter_names)
      if (!parameters || !parameters->has(name))
        throw ConfigError(parameters ? parameters->position(name)
                                     : root.subsection("model")->position("parameters"),
                          "parameters." + name,
                          "is required: a model defined in the file has no default values");

  // Initial values are numbers or expressions of the parameters (and constants, and t).
  const ExpressionScope scope = initial_value_scope(config);
  config.initial_formulas.resize(config.state_names.size());  // an SBML model's, else none
  config.initial_state.resize(config.state_names.size(), NAN);
  const auto initial = root.subsection("initial");
  if (initial) {
    for (auto&& [key, node] : initial->table()) {
      const auto& names = config.state_names;
      const auto it = std::find(names.begin(), names.end(), key.str());
      if (it == names.end())
        initial->fail(key.str(), "unknown state (this model has: " + joined(names) + ")");
      const auto i = std::size_t(it - names.begin());
      if (!node.is_string()) {
        if (!node.is_number()) initial->fail(key.str(), "must be a number or an expression string");
        config.initial_state[i] = initial->required_number(key.str());
        config.initial_formulas[i].reset();
        continue;
      }
      const Formula& formula = config.initial_formulas[i].emplace(formula_at(*initial, key.str()));
      config.initial_state[i] = parse_formula(formula, scope).evaluate(config.parameters.data());
      if (!std::isfinite(config.initial_state[i]))
        initial->fail(key.str(), "evaluates to " + std::to_string(config.initial_state[i]) +
                                     " at the given parameters");
    }
  }
  if (defined)
    for (const std::string& name : config.state_names)
      if (!initial || !initial->has(name))
        throw ConfigError(initial ? initial->position(name) : root.position("initial"),
                          "initial." + name,
                          "is required: a model defined in the file has no default initial state");
  // An SBML model's initial values that [initial] left, at the parameters' values.
  for (std::size_t i = 0; i < config.state_names.size(); ++i) {
    const auto& formula = config.initial_formulas[i];
    if (!formula || (initial && initial->has(config.state_names[i]))) continue;
    config.initial_state[i] = parse_formula(*formula, scope).evaluate(config.parameters.data());
    if (!std::isfinite(config.initial_state[i]))
      throw ConfigError(formula->at, formula->key, "the initial value " + formula->text + " is " +
                                                       std::to_string(config.initial_state[i]) + " at the parameters' values");
  }
}

}  // namespace backsweep::detail
