#include "io/detail/grid_sections.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>

#include <hdf5.h>

#include "io/detail/checkpointing_section.hpp"
#include "io/detail/expression_reader.hpp"
#include "io/detail/joined.hpp"
#include "io/field_file_readers.hpp"

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
void check_memory(const TomlSection& root, const FieldEquations& fields) {
  const double copies = 32, bytes = copies * 8.0 * double(fields.state_size() + fields.param_size());
  const double memory = double(machine_memory());
  if (memory > 0 && bytes > memory)
    root.subsection("grid")->fail("shape", "needs at least " + std::to_string(std::uint64_t(bytes)) +
                                               " bytes (about 32 copies of the fields), more than this machine's " +
                                               std::to_string(std::uint64_t(memory)) + ": use fewer points");
}

std::string shape_text(const std::vector<hsize_t>& shape) {
  std::string text = "[";
  for (std::size_t a = 0; a < shape.size(); ++a) {
    if (a > 0) text += ", ";
    text += std::to_string(shape[a]);  // appended: GCC 12 misreports ", " + string (-Wrestrict)
  }
  return text + "]";
}

// A field from an HDF5 dataset shaped like the grid; empty, or what is wrong.
std::string read_hdf5_field(const std::filesystem::path& path, const std::string& dataset, const Grid& grid,
                            double* values) {
  H5E_auto2_t printer = nullptr;  // HDF5's own error stack stays quiet: our message says it
  void* printer_data = nullptr;
  H5Eget_auto2(H5E_DEFAULT, &printer, &printer_data);
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  std::string problem;
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  const hid_t set = file < 0 ? -1 : H5Dopen2(file, dataset.c_str(), H5P_DEFAULT);
  const hid_t space = set < 0 ? -1 : H5Dget_space(set);
  std::vector<hsize_t> shape(space < 0 ? 0 : std::size_t(std::max(0, H5Sget_simple_extent_ndims(space))));
  if (space >= 0) H5Sget_simple_extent_dims(space, shape.data(), nullptr);
  const std::vector<hsize_t> expected(grid.shape().begin(), grid.shape().end());
  if (file < 0) problem = "cannot open " + path.string() + " as HDF5";
  else if (set < 0) problem = "no dataset '" + dataset + "' in " + path.string();
  else if (shape != expected)
    problem = "dataset '" + dataset + "' has shape " + shape_text(shape) + "; the grid's is " + shape_text(expected);
  else if (H5Dread(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values) < 0)
    problem = "cannot read dataset '" + dataset + "' as numbers";
  if (space >= 0) H5Sclose(space);
  if (set >= 0) H5Dclose(set);
  if (file >= 0) H5Fclose(file);
  H5Eset_auto2(H5E_DEFAULT, printer, printer_data);
  return problem;
}

// A field from a point array of a VTK ImageData file with the grid's points per axis
// (VTK's x, y, z are the grid's axes in reverse; x varies fastest in both); empty, or
// what is wrong.
std::string read_vti_field(const std::filesystem::path& path, const std::string& array, const Grid& grid,
                           double* values) {
  const VtiReader reader = vti_reader();
  if (!reader) return "this program cannot read .vti files (it does not link backsweep::vtk)";
  const ImageArray image = reader(path.string(), array);
  if (!image.problem.empty()) return image.problem;
  std::vector<hsize_t> shape;
  for (std::size_t v = 3; v-- > 0;)
    if (v < grid.axes() || image.dimensions[v] != 1) shape.push_back(image.dimensions[v]);
  const std::vector<hsize_t> expected(grid.shape().begin(), grid.shape().end());
  if (shape != expected)
    return "point array '" + array + "' has shape " + shape_text(shape) + "; the grid's is " + shape_text(expected);
  if (image.values.size() != grid.points())
    return "point array '" + array + "' holds " + std::to_string(image.values.size()) + " values for " +
           std::to_string(grid.points()) + " points";
  std::copy(image.values.begin(), image.values.end(), values);
  return "";
}

// section.name = { file = "u0.h5", dataset = "u" } or { file = "u0.vti", array = "u" }: a
// field's values at every point from an HDF5 dataset or a VTK ImageData point array
// (default name: the field's), the file relative to the config's folder.
void read_field_file(const TomlSection& section, const std::string& name, const toml::table& source,
                     const Grid& grid, const std::string& config_file, double* values) {
  const TomlSection from(source, section.position(name).file, section.key_name(name));
  from.reject_unknown_keys({"file", "dataset", "array"});
  if (!from.has("file"))
    section.fail(name, "needs file = \"...h5\" or \"...vti\" (and dataset or array, default the field's name)");
  const std::filesystem::path path =
      (std::filesystem::path(config_file).parent_path() / from.string("file", "")).lexically_normal();
  if (!std::filesystem::is_regular_file(path)) section.fail(name, "no such file: " + path.string());
  std::string extension = path.extension().string();
  for (char& c : extension) c = char(std::tolower(static_cast<unsigned char>(c)));
  const bool vti = extension == ".vti";
  if (vti && from.has("dataset"))
    from.fail("dataset", "is for HDF5 files; a .vti file names its point array: array = \"...\"");
  if (!vti && from.has("array")) from.fail("array", "is for .vti files; an HDF5 file names its dataset: dataset = \"...\"");
  const std::string source_name = vti ? from.string("array", name) : from.string("dataset", name);
  const std::string problem =
      vti ? read_vti_field(path, source_name, grid, values) : read_hdf5_field(path, source_name, grid, values);
  if (!problem.empty()) section.fail(name, problem);
  for (std::size_t point = 0; point < grid.points(); ++point)
    if (!std::isfinite(values[point])) {
      std::string what = vti ? "point array '" : "dataset '";
      what += source_name;  // appended: GCC 12 misreports "..." + string (-Wrestrict)
      section.fail(name, what + "' holds " + std::to_string(values[point]) + " at point " + std::to_string(point));
    }
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

}  // namespace

bool read_grid_model(const TomlSection& root, SimulateConfig& config) {
  if (!root.has("grid")) return false;
  const Grid grid = read_grid(root);
  const auto model = root.subsection("model");
  if (!model) root.fail("model", "the [model] section is required");
  model->reject_unknown_keys({"fields", "parameters", "parameter_fields", "equations", "constants"});
  if (!model->has("fields")) model->fail("fields", "is required on a grid: the fields' names, e.g. [\"u\", \"v\"]");
  ExpressionScope declared;
  declared.add_segment({"t"});
  for (std::size_t a = 0; a < grid.axes(); ++a) declared.add_constant(std::string(Grid::axis_name(grid.axes(), a)), 0);
  const std::vector<std::string> fields = read_new_names(*model, "fields", declared);
  if (fields.empty()) model->fail("fields", "must list at least one field");
  const std::vector<std::string> scalars = read_new_names(*model, "parameters", declared);
  const std::vector<std::string> parameter_fields = read_new_names(*model, "parameter_fields", declared);
  if (fields.size() > FieldEquations::kMaxPerPoint) model->fail("fields", "lists more than 32 fields");
  if (parameter_fields.size() > FieldEquations::kMaxPerPoint)
    model->fail("parameter_fields", "lists more than 32 parameter fields");
  if (const auto constants = model->subsection("constants"))
    for (auto&& [key, node] : constants->table()) {
      const std::string name(key.str());
      if (auto problem = declared.problem_with(name)) constants->fail_at_key(name, *problem);
      declared.add_constant(name, 0.0);
      config.constants.push_back({name, constants->required_number(name)});
    }

  const auto equations = model->subsection("equations");
  if (!equations) model->fail("equations", "is required: one equation per field, in [model.equations]");
  for (auto&& [key, node] : equations->table())
    if (std::find(fields.begin(), fields.end(), key.str()) == fields.end())
      equations->fail_at_key(key.str(), "is not a field (model.fields: " + joined(fields) + ")");
  FieldEquations on_grid(grid, fields, parameter_fields, scalars.size());
  check_memory(root, on_grid);
  std::vector<Expression> parsed;
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
      parsed.push_back(read_expression(*equations, field, scope));
    }
  }
  config.model = "expression";
  config.state_names = per_point(fields, grid);
  config.parameter_names = scalars;
  const std::vector<std::string> field_parameters = per_point(parameter_fields, grid);
  config.parameter_names.insert(config.parameter_names.end(), field_parameters.begin(), field_parameters.end());
  config.expression_model = std::make_shared<const ExpressionModel>(std::move(on_grid), scalars, std::move(parsed));
  return true;
}

void read_grid_parameters_and_initial(const TomlSection& root, SimulateConfig& config) {
  const FieldEquations& fields = *config.expression_model->fields();
  const Grid& grid = fields.grid();
  const std::vector<std::string>& scalars = config.expression_model->param_names();
  const std::size_t n = grid.points();
  config.parameters.assign(scalars.size() + fields.parameter_fields().size() * n, NAN);
  config.initial_state.assign(fields.state_size(), NAN);
  config.initial_expressions.assign(fields.state_size(), std::nullopt);

  // Scalars first: parameter fields and initial fields may use their values.
  const auto parameters = root.subsection("parameters");
  const auto missing = [&](const std::optional<TomlSection>& section, std::string_view name, const std::string& key,
                           const std::string& what) {
    throw ConfigError(section ? section->position(name) : root.position(key.substr(0, key.find('.'))), key,
                      "is required: " + what);
  };
  for (std::size_t j = 0; j < scalars.size(); ++j) {
    if (!parameters || !parameters->has(scalars[j]))
      missing(parameters, scalars[j], "parameters." + scalars[j], "a model defined in the file has no default values");
    config.parameters[j] = parameters->required_number(scalars[j]);
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
