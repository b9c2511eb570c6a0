#include "io/config/grid_sections.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>

#include "io/config/checkpointing_section.hpp"
#include "io/config/expression_reader.hpp"
#include "io/config/field_file_section.hpp"
#include "io/config/detail/joined.hpp"
#include "models/builtin/grid_kernels.hpp"

namespace backsweep::detail {

namespace {

Boundary boundary_named(const TomlSection& grid, std::string_view key, const std::string& name) {
  for (Boundary b : {Boundary::periodic, Boundary::dirichlet, Boundary::neumann})
    if (name == to_string(b)) return b;
  grid.fail(key, "unknown boundary '" + name + "' (periodic, dirichlet or neumann)");
}

Grid read_grid(const TomlSection& root) {
  const auto grid = root.subsection("grid");
  grid->reject_unknown_keys({"shape", "extent", "boundary"});
  const std::vector<double> shape = grid->number_array("shape");
  if (shape.empty() || shape.size() > 3) grid->fail("shape", "must list the points of 1, 2 or 3 axes");
  std::vector<std::size_t> points;
  double total = 1;
  for (std::size_t a = 0; a < shape.size(); ++a) {
    if (!(shape[a] >= 1) || shape[a] != std::floor(shape[a]) || shape[a] > 1e9)
      grid->fail_entry("shape", a, "must be a whole number of points, at least 1");
    points.push_back(std::size_t(shape[a]));
    total *= shape[a];
  }
  if (total > double(std::uint32_t(-1)) / 4) grid->fail("shape", "has more than 2^30 points");
  if (!grid->has("extent")) grid->fail("extent", "is required: the domain's length along each axis");
  const std::vector<double> extent = grid->number_array("extent");
  if (extent.size() != shape.size())
    grid->fail("extent", "must have one length per axis of grid.shape (" + std::to_string(shape.size()) + ")");
  for (std::size_t a = 0; a < extent.size(); ++a)
    if (!(extent[a] > 0) || !std::isfinite(extent[a])) grid->fail_entry("extent", a, "must be a positive length");
  std::vector<Boundary> boundary(shape.size(), Boundary::periodic);
  if (grid->has("boundary") && grid->table().get("boundary")->is_string()) {
    boundary.assign(shape.size(), boundary_named(*grid, "boundary", grid->string("boundary", "")));
  } else if (const auto names = grid->string_array("boundary")) {
    if (names->size() != shape.size())
      grid->fail("boundary", "must have one boundary per axis of grid.shape, or be one string");
    for (std::size_t a = 0; a < names->size(); ++a) boundary[a] = boundary_named(*grid, "boundary", (*names)[a]);
  }
  return Grid(points, extent, boundary);
}

// Refuses a grid whose working set (the fields and parameter fields, a few dozen copies
// for stages, checkpoints and adjoints) cannot fit in this machine's memory.
void check_memory(const TomlSection& root, const GridLayout& fields) {
  const double copies = 32, bytes = copies * 8.0 * double(fields.state_size() + fields.param_size());
  const double memory = double(machine_memory());
  if (memory > 0 && bytes > memory)
    root.subsection("grid")->fail("shape", "needs at least " + std::to_string(std::uint64_t(bytes)) +
                                               " bytes (about 32 copies of the fields), more than this machine's " +
                                               std::to_string(std::uint64_t(memory)) + ": use fewer points");
}

std::vector<std::string> read_new_names(const TomlSection& model, std::string_view key, ExpressionScope& declared) {
  std::vector<std::string> names = model.string_array(key).value_or(std::vector<std::string>{});
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (auto problem = declared.problem_with(names[i])) model.fail_entry(key, i, *problem);
    for (const char* name : FieldEquations::kOperatorNames)
      if (names[i] == name) model.fail_entry(key, i, "'" + names[i] + "' is the name of a grid operator");
    declared.add_constant(names[i], 0.0);  // only the name counts
  }
  return names;
}

// "u[3,4]": a field's value at a point, by its indices in array order.
std::string point_name(const std::string& field, const Grid& grid, std::size_t point) {
  const auto at = grid.position(point);
  std::string name = field + "[";
  for (std::size_t a = 0; a < grid.axes(); ++a) {
    if (a > 0) name += ',';
    name += std::to_string(at[a]);  // appended: GCC 12 misreports "," + string (-Wrestrict)
  }
  return name + "]";
}

std::vector<std::string> per_point(const std::vector<std::string>& fields, const Grid& grid) {
  std::vector<std::string> names;
  names.reserve(fields.size() * grid.points());
  for (const std::string& field : fields)
    for (std::size_t point = 0; point < grid.points(); ++point) names.push_back(point_name(field, grid, point));
  return names;
}

// [model.constants]: names the equations, initial values and objectives may use.
void read_grid_constants(const TomlSection& model, ExpressionScope& declared, SimulateSpec& config) {
  if (const auto constants = model.subsection("constants"))
    for (auto&& [key, node] : constants->table()) {
      const std::string name(key.str());
      if (auto problem = declared.problem_with(name)) constants->fail_at_key(name, *problem);
      declared.add_constant(name, 0.0);
      config.constants.push_back({name, constants->required_number(name)});
    }
}

// The names the model's numbers go by: per point for fields and parameter fields.
void name_numbers(const GridLayout& layout, const std::vector<std::string>& scalars, SimulateSpec& config) {
  config.state_names = per_point(layout.fields(), layout.grid());
  config.parameter_names = scalars;
  const std::vector<std::string> field_parameters = per_point(layout.parameter_fields(), layout.grid());
  config.parameter_names.insert(config.parameter_names.end(), field_parameters.begin(), field_parameters.end());
}

// [model.source] of the acoustic model: point = [indices in array order], f0, t0, amplitude.
models::AcousticSource read_source(const TomlSection& model, const Grid& grid) {
  const auto source = model.subsection("source");
  if (!source) model.fail("source", "is required by the acoustic model: [model.source] point = [...], f0, t0");
  source->reject_unknown_keys({"point", "f0", "t0", "amplitude"});
  const std::vector<double> at = source->number_array("point");
  if (at.size() != grid.axes())
    source->fail("point", "must give the source's index along each of the grid's " + std::to_string(grid.axes()) +
                              " axes (array order)");
  models::AcousticSource result;
  result.point = 0;
  for (std::size_t a = 0; a < at.size(); ++a) {
    if (!(at[a] >= 0) || at[a] != std::floor(at[a]) || at[a] >= double(grid.size(a)))
      source->fail_entry("point", a, "must be a whole index from 0 to " + std::to_string(grid.size(a) - 1));
    result.point += std::size_t(at[a]) * grid.stride(a);
  }
  result.f0 = source->required_number("f0");
  result.t0 = source->required_number("t0");
  result.amplitude = source->number("amplitude", 1.0);
  if (!(result.f0 > 0) || !std::isfinite(result.f0)) source->fail("f0", "must be a positive frequency");
  if (!std::isfinite(result.t0)) source->fail("t0", "must be a finite time");
  if (!std::isfinite(result.amplitude)) source->fail("amplitude", "must be a finite number");
  return result;
}

// model.name on a grid: a hand-written kernel (models/builtin/grid_kernels.hpp).
void read_grid_kernel(const TomlSection& root, const TomlSection& model, const Grid& grid, ExpressionScope& declared,
                      SimulateSpec& config) {
  for (std::string_view key : {"fields", "parameters", "parameter_fields", "equations"})
    if (model.has(key))
      model.fail(key, "give either model.name (a built-in grid model) or the model's fields and equations, not both");
  const std::string name = model.string("name", "");
  auto parts = models::grid_kernel_parts(name, grid);
  if (!parts)
    model.fail("name", "unknown grid model '" + name + "' (built-in grid models: " + joined(models::grid_kernel_names) +
                           "; or give model.fields and [model.equations])");
  if (model.has("source") && !parts->takes_source)
    model.fail("source", "is for a model with a point source (acoustic)");
  const std::vector<std::string>& scalars = parts->scalars;
  for (const auto* names : {&parts->layout.fields(), &scalars, &parts->layout.parameter_fields()})
    for (const std::string& declared_name : *names) declared.add_constant(declared_name, 0.0);
  read_grid_constants(model, declared, config);
  check_memory(root, parts->layout);
  config.model = name;
  name_numbers(parts->layout, parts->scalars, config);
  config.parameters.assign(parts->layout.param_size(), NAN);
  std::copy(parts->defaults.begin(), parts->defaults.end(), config.parameters.begin());
  config.kind = ModelKind::grid_kernel;
  if (parts->takes_source) config.source = read_source(model, grid);
  config.layout = std::move(parts->layout);
}

}  // namespace

bool read_grid_model(const TomlSection& root, SimulateSpec& config) {
  if (!root.has("grid")) return false;
  const Grid grid = read_grid(root);
  const auto model = root.subsection("model");
  if (!model) root.fail("model", "the [model] section is required");
  model->reject_unknown_keys({"name", "source", "fields", "parameters", "parameter_fields", "equations", "constants"});
  ExpressionScope declared;
  declared.add_segment({"t"});
  for (std::size_t a = 0; a < grid.axes(); ++a) declared.add_constant(std::string(Grid::axis_name(grid.axes(), a)), 0);
  if (model->has("name")) {
    read_grid_kernel(root, *model, grid, declared, config);
    return true;
  }
  if (model->has("source")) model->fail("source", "is for the acoustic model (model.name = \"acoustic\")");
  if (!model->has("fields")) model->fail("fields", "is required on a grid: the fields' names, e.g. [\"u\", \"v\"]");
  const std::vector<std::string> fields = read_new_names(*model, "fields", declared);
  if (fields.empty()) model->fail("fields", "must list at least one field");
  const std::vector<std::string> scalars = read_new_names(*model, "parameters", declared);
  const std::vector<std::string> parameter_fields = read_new_names(*model, "parameter_fields", declared);
  if (fields.size() > FieldEquations::kMaxPerPoint) model->fail("fields", "lists more than 32 fields");
  if (parameter_fields.size() > FieldEquations::kMaxPerPoint)
    model->fail("parameter_fields", "lists more than 32 parameter fields");
  read_grid_constants(*model, declared, config);

  const auto equations = model->subsection("equations");
  if (!equations) model->fail("equations", "is required: one equation per field, in [model.equations]");
  for (auto&& [key, node] : equations->table())
    if (std::find(fields.begin(), fields.end(), key.str()) == fields.end())
      equations->fail_at_key(key.str(), "is not a field (model.fields: " + joined(fields) + ")");
  FieldEquations on_grid(grid, fields, parameter_fields, scalars.size());
  check_memory(root, on_grid);
  std::vector<Formula> parsed;
  {
    std::vector<std::string> constant_names;
    std::vector<double> constant_values;
    for (const NamedConstant& c : config.constants) {
      constant_names.push_back(c.name);
      constant_values.push_back(c.value);
    }
    const ExpressionScope scope = on_grid.point_scope(scalars, constant_names, constant_values);
    for (const std::string& field : fields) {
      if (!equations->has(field))
        equations->fail(field, "is required: the equation of field '" + field + "' (d" + field + "/dt)");
      parsed.push_back(read_formula(*equations, field, scope));
    }
  }
  config.model = "expression";
  config.kind = ModelKind::equations;
  name_numbers(on_grid, scalars, config);
  config.parameters.assign(on_grid.param_size(), NAN);  // no defaults
  config.layout = static_cast<const GridLayout&>(on_grid);
  config.equations = std::move(parsed);
  return true;
}

void read_grid_parameters_and_initial(const TomlSection& root, SimulateSpec& config) {
  const GridLayout& fields = *config.fields();
  const Grid& grid = fields.grid();
  const std::vector<std::string> scalars = config.scalar_parameter_names();
  const std::size_t n = grid.points();
  config.initial_state.assign(fields.state_size(), NAN);
  config.initial_formulas.assign(fields.state_size(), std::nullopt);

  // Scalars first: parameter fields and initial fields may use their values.
  const auto parameters = root.subsection("parameters");
  const auto missing = [&](const std::optional<TomlSection>& section, std::string_view name, const std::string& key,
                           const std::string& what) {
    throw ConfigError(section ? section->position(name) : root.position(key.substr(0, key.find('.'))), key,
                      "is required: " + what);
  };
  for (std::size_t j = 0; j < scalars.size(); ++j) {
    if (parameters && parameters->has(scalars[j])) config.parameters[j] = parameters->required_number(scalars[j]);
    else if (std::isnan(config.parameters[j]))
      missing(parameters, scalars[j], "parameters." + scalars[j],
              config.kind == ModelKind::grid_kernel ? "model '" + config.model + "' has no default value for it"
                                 : "a model defined in the file has no default values");
  }
  if (parameters)
    for (auto&& [key, node] : parameters->table()) {
      const std::string name(key.str());
      const auto& pf = fields.parameter_fields();
      if (std::find(scalars.begin(), scalars.end(), name) == scalars.end() &&
          std::find(pf.begin(), pf.end(), name) == pf.end())
        parameters->fail_at_key(name, "unknown parameter (this model has: " + joined(scalars) +
                                          "; parameter fields: " + joined(pf) + ")");
    }

  // Values at every point of numbers or expressions of (coordinates, scalars, fields).
  std::vector<std::string> coordinates;
  for (std::size_t a = 0; a < grid.axes(); ++a) coordinates.emplace_back(Grid::axis_name(grid.axes(), a));
  ExpressionScope scope;
  scope.add_segment(coordinates);
  scope.add_segment(scalars);
  scope.add_segment(fields.fields());
  for (const NamedConstant& c : config.constants) scope.add_constant(c.name, c.value);
  // `parsed`: the key's expression where the caller has parsed it already.
  const auto fill = [&](const TomlSection& section, const std::string& name, double* values,
                        const std::vector<const double*>& field_values, const Expression* parsed = nullptr) {
    const auto node = section.table().get(name);
    if (const toml::table* source = node->as_table())
      return read_field_file(section, name, *source, grid, config.file, values);
    if (!node->is_string()) {
      if (!node->is_number())
        section.fail(name, "must be a number, an expression string, or { file = \"...h5\" or \"...vti\" }");
      std::fill(values, values + n, section.required_number(name));
      return;
    }
    const Expression e = parsed ? *parsed : read_expression(section, name, scope);
    for (std::size_t g = field_values.size(); g < fields.fields().size(); ++g)
      if (e.uses(2, g))
        section.fail(name, "a parameter field is an expression of the coordinates and the scalar parameters, not of "
                           "the fields");
    double at[Grid::kMaxAxes], here[FieldEquations::kMaxPerPoint];
    const double* segments[] = {at, config.parameters.data(), here};
    for (std::size_t point = 0; point < n; ++point) {
      const auto index = grid.position(point);
      for (std::size_t a = 0; a < grid.axes(); ++a) at[a] = grid.coordinate(a, index[a]);
      for (std::size_t f = 0; f < field_values.size(); ++f) here[f] = field_values[f][point];
      values[point] = e.evaluate_segments(segments);
      if (!std::isfinite(values[point]))
        section.fail(name, "is " + std::to_string(values[point]) + " at grid point " + point_name(name, grid, point));
    }
  };
  for (std::size_t f = 0; f < fields.parameter_fields().size(); ++f) {
    const std::string& name = fields.parameter_fields()[f];
    if (!parameters || !parameters->has(name))
      missing(parameters, name, "parameters." + name, "the values of parameter field '" + name + "'");
    fill(*parameters, name, config.parameters.data() + scalars.size() + f * n, {});
  }

  // Fields in an order where each comes after those it uses; a cycle is an error.
  const auto initial = root.subsection("initial");
  for (const std::string& name : fields.fields())
    if (!initial || !initial->has(name))
      missing(initial, name, "initial." + name, "the initial values of field '" + name + "'");
  for (auto&& [key, node] : initial->table())
    if (std::find(fields.fields().begin(), fields.fields().end(), key.str()) == fields.fields().end())
      initial->fail_at_key(key.str(), "unknown field (this model has: " + joined(fields.fields()) + ")");
  std::vector<const double*> field_values;
  for (std::size_t f = 0; f < fields.fields().size(); ++f) field_values.push_back(config.initial_state.data() + f * n);
  std::vector<std::optional<Expression>> parsed(fields.fields().size());
  for (std::size_t f = 0; f < fields.fields().size(); ++f) {
    const std::string& name = fields.fields()[f];
    if (!initial->table().get(name)->is_string()) continue;
    parsed[f] = read_expression(*initial, name, scope);
    if (parsed[f]->uses(2, f)) initial->fail(name, "uses the field it defines");
  }
  std::vector<bool> done(fields.fields().size(), false);
  for (std::size_t round = 0; round < fields.fields().size(); ++round)
    for (std::size_t f = 0; f < fields.fields().size(); ++f) {
      if (done[f]) continue;
      bool ready = true;
      if (parsed[f])
        for (std::size_t g = 0; g < fields.fields().size(); ++g) ready &= done[g] || !parsed[f]->uses(2, g);
      if (!ready) continue;
      fill(*initial, fields.fields()[f], config.initial_state.data() + f * n, field_values,
           parsed[f] ? &*parsed[f] : nullptr);
      done[f] = true;
    }
  for (std::size_t f = 0; f < fields.fields().size(); ++f)
    if (!done[f]) initial->fail(fields.fields()[f], "and the fields it uses define each other in a cycle");
}

}  // namespace backsweep::detail
