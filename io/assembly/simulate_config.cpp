#include "io/assembly/simulate_config.hpp"

#include <algorithm>
#include <iostream>
#include <memory>
#include <utility>

#include "io/assembly/step_stability.hpp"
#include "io/config/backends.hpp"
#include "io/config/config_file.hpp"
#include "io/config/expression_reader.hpp"
#include "models/field_equations.hpp"
#include "solvers/time_events.hpp"
#include "platform/printable.hpp"

namespace backsweep {

std::shared_ptr<const TimeEvents> build_time_events(const SimulateSpec& spec, const std::vector<EventSpec>& specs) {
  const ExpressionScope scope = expression_scope(spec);
  std::vector<TimeEvent> events;
  for (const EventSpec& event : specs) {
    TimeEvent built{event.name, event.times, {}};
    if (event.at) built.at = parse_formula(*event.at, scope);
    if (event.when) built.when = parse_formula(*event.when, scope);
    built.direction = event.direction;
    built.terminal = event.terminal;
    for (const auto& [state, formula] : event.set) {
      const auto i = std::find(spec.state_names.begin(), spec.state_names.end(), state) - spec.state_names.begin();
      built.set.push_back({std::size_t(i), parse_formula(formula, scope), state});
    }
    events.push_back(std::move(built));
  }
  return std::make_shared<const TimeEvents>(std::move(events), spec.state_names.size(), spec.parameter_names.size());
}

namespace {

std::vector<Expression> parsed(const std::vector<Formula>& formulas, const ExpressionScope& scope) {
  std::vector<Expression> expressions;
  expressions.reserve(formulas.size());
  for (const Formula& formula : formulas) expressions.push_back(parse_formula(formula, scope));
  return expressions;
}

// A defined model: on a grid, its equations are programs over a point and its stencils.
std::shared_ptr<ExpressionModel> equations_model(const SimulateSpec& spec) {
  if (!spec.layout)
    return std::make_shared<ExpressionModel>(spec.state_names, spec.parameter_names,
                                                   parsed(spec.equations, expression_scope(spec)));
  const GridLayout& layout = *spec.layout;
  FieldEquations on_grid(layout.grid(), layout.fields(), layout.parameter_fields(), layout.scalar_parameters());
  std::vector<std::string> constant_names;
  std::vector<double> constant_values;
  for (const NamedConstant& c : spec.constants) {
    constant_names.push_back(c.name);
    constant_values.push_back(c.value);
  }
  const std::vector<std::string> scalars = spec.scalar_parameter_names();
  std::vector<Expression> equations =
      parsed(spec.equations, on_grid.point_scope(scalars, constant_names, constant_values));
  return std::make_shared<ExpressionModel>(std::move(on_grid), scalars, std::move(equations));
}

// Equations as native kernels (on a grid, on every OpenMP thread for backend omp), or,
// where none can be built, by the interpreter, said in one line on stderr.
void compile_kernels(ExpressionModel& model, const SimulateSpec& spec) {
  CompilerOptions options;
  options.cache = spec.kernel_cache;
  try {
    model.compile(options, backend_has(spec.backend, &BackendEntry::threaded_kernels) ? 0 : 1);
  } catch (const NativeLibraryError& error) {
    std::cerr << "backsweep: the equations run on the interpreter: " << printable(error.what()) << "\n";
  }
}

}  // namespace

SimulateConfig assemble_simulate(SimulateSpec spec) {
  SimulateConfig config;
  static_cast<SimulateSpec&>(config) = std::move(spec);
  if (config.kind == ModelKind::equations) {
    const std::shared_ptr<ExpressionModel> model = equations_model(config);
    // On cuda too: the GPU's kernels are built where they run (apps/cuda_gradient.cu), and
    // what runs on the cpu there (simulate, a run without a GPU) runs these.
    if (config.compiled_kernels) compile_kernels(*model, config);
    config.expression_model = model;
  }
  if (config.kind == ModelKind::grid_kernel)
    config.grid_kernel = std::make_shared<const models::GridKernel>(
        models::GridKernel{config.model, *config.layout, config.source});
  config.method = *find_method(config.method_name);
  if (config.newton_tolerance) config.method.newton.tolerance = *config.newton_tolerance;
  config.method.newton.linear_solver = config.linear_solver;
  config.method.newton.preconditioner = config.preconditioner;
  if (config.krylov_tolerance) config.method.newton.krylov_tolerance = *config.krylov_tolerance;
  // An ODE's initial values are expressions of the parameters and constants (a grid's
  // initial fields are numbers once read).
  config.initial_expressions.resize(config.initial_formulas.size());
  if (!config.layout) {
    const ExpressionScope scope = initial_value_scope(config);
    for (std::size_t i = 0; i < config.initial_formulas.size(); ++i)
      if (const std::optional<Formula>& formula = config.initial_formulas[i])
        config.initial_expressions[i] = parse_formula(*formula, scope);
  }
  if (!config.events.empty()) config.integrate.events = build_time_events(config, config.events);
  check_step_stability(config);
  return config;
}

SimulateConfig load_simulate_config(const std::string& path) { return simulate_config(read_config_file(path)); }

SimulateConfig simulate_config(const ConfigFile& file) { return assemble_simulate(simulate_spec(file)); }

MemberValues member_values(const SimulateConfig& config, const EnsembleConfig& ensemble, std::size_t member) {
  MemberValues values{config.initial_state, config.parameters};
  const std::vector<double>& row = ensemble.members[member];
  for (std::size_t k = 0; k < ensemble.varied.size(); ++k)
    (ensemble.varied[k].state ? values.y0 : values.p)[ensemble.varied[k].index] = row[k];
  for (std::size_t i = 0; i < values.y0.size(); ++i)
    if (const auto& e = config.initial_expressions[i]) values.y0[i] = e->evaluate(values.p.data());
  return values;
}

}  // namespace backsweep
