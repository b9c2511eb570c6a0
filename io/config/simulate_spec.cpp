#include "io/config/simulate_spec.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>

#include "io/config/backends.hpp"
#include "io/config/checkpointing_section.hpp"
#include "io/config/config_file.hpp"
#include "io/config/config_sections.hpp"
#include "io/config/detail/joined.hpp"
#include "io/config/events_section.hpp"
#include "io/config/model_sections.hpp"
#include "models/builtin/grid_kernels.hpp"
#include "models/builtin/registry.hpp"
#include "models/sparsity.hpp"
#include "solvers/butcher_tableau.hpp"
#include "solvers/method.hpp"

namespace backsweep {

namespace {

using detail::TomlSection;

using detail::joined;

// Sections any command may use; `simulate` checks only those it reads.
const std::initializer_list<std::string_view> kSections = {
    "model",        "parameters", "initial", "time",  "solver",      "objective",
    "gradient",     "checkpointing", "output", "estimate", "observables", "data",
    "experiments",  "noise",      "optimizer", "lyapunov", "monitor",  "grid",
    "ensemble",     "regularization", "shadowing", "events"};

void read_time(const TomlSection& root, SimulateSpec& config) {
  const auto time = root.subsection("time");
  if (!time) root.fail("time", "the [time] section is required");
  time->reject_unknown_keys({"start", "end", "output", "output_step"});
  IntegrateOptions& options = config.integrate;
  options.t0 = time->number("start", 0.0);
  options.t1 = time->required_number("end");
  if (!(options.t1 > options.t0)) time->fail("end", "must be greater than time.start");
  if (time->has("output") && time->has("output_step"))
    time->fail("output_step", "give either time.output or time.output_step, not both");
  options.output_times = time->number_array("output");
  for (std::size_t i = 0; i < options.output_times.size(); ++i) {
    const double t = options.output_times[i];
    if (t < options.t0 || t > options.t1)
      time->fail("output", "output time " + std::to_string(t) + " lies outside [start, end]");
    if (i > 0 && !(t > options.output_times[i - 1]))
      time->fail("output", "output times must be strictly increasing");
  }
  if (time->has("output") && options.output_times.empty())
    time->fail("output", "must list at least one time (omit it to write every step)");
  if (auto step = time->optional_number("output_step")) {
    if (!(*step > 0.0)) time->fail("output_step", "must be > 0");
    const double count = std::floor((options.t1 - options.t0) / *step * (1.0 + 1e-12));
    if (!(count <= 1e7)) time->fail("output_step", "gives more than 10^7 output times");
    for (std::size_t k = 1; k <= std::size_t(count); ++k)
      options.output_times.push_back(std::min(options.t0 + double(k) * *step, options.t1));
    // The end is always written; a last multiple within rounding of it is the end.
    if (!options.output_times.empty() &&
        options.t1 - options.output_times.back() <= 1e-9 * *step)
      options.output_times.back() = options.t1;
    if (options.output_times.empty() || options.output_times.back() < options.t1)
      options.output_times.push_back(options.t1);
  }
}

// The method a spec names (read_solver has checked the name).
const Method& method_of(const SimulateSpec& config) { return *find_method(config.method_name); }

bool declares_sparsity(const SimulateSpec& config) {
  bool declared = false;
  const auto check = [&](const auto& model) { declared = HasSparsityPattern<std::remove_cvref_t<decltype(model)>>; };
  if (config.kind == ModelKind::equations) declared = HasSparsityPattern<ExpressionModel>;
  else if (config.kind == ModelKind::grid_kernel)
    models::visit_grid_kernel(models::GridKernel{config.model, *config.layout, config.source}, check);
  else models::visit_builtin_model(config.model, config.model_points, check);
  return declared;
}

// Whether the model's states lie on a grid (multigrid needs one).
bool on_grid(const SimulateSpec& config) {
  if (config.layout) return true;
  bool gridded = false;
  if (config.kind == ModelKind::builtin_ode)
    models::visit_builtin_model(config.model, config.model_points,
                                [&](const auto& model) { gridded = grid_of(model) != nullptr; });
  return gridded;
}

// solver.linear_solver (auto | dense | klu | gmres | cg), solver.preconditioner (auto |
// none | jacobi | ilu | multigrid) and solver.krylov_tolerance, for implicit methods.
void read_linear_solver(const TomlSection& solver, SimulateSpec& config) {
  static constexpr std::pair<std::string_view, LinearSolver> kSolvers[] = {
      {"auto", LinearSolver::automatic}, {"dense", LinearSolver::dense}, {"klu", LinearSolver::sparse},
      {"sparse", LinearSolver::sparse},  {"gmres", LinearSolver::gmres}, {"cg", LinearSolver::cg}};
  static constexpr std::pair<std::string_view, PreconditionerKind> kPreconditioners[] = {
      {"auto", PreconditionerKind::automatic}, {"none", PreconditionerKind::none},
      {"jacobi", PreconditionerKind::jacobi},  {"ilu", PreconditionerKind::ilu},
      {"multigrid", PreconditionerKind::multigrid}};
  const Method& method = method_of(config);
  for (const char* key : {"linear_solver", "preconditioner", "krylov_tolerance"})
    if (solver.has(key) && !method.solves_linear_systems())
      solver.fail(key, "is for implicit methods; '" + config.method_name + "' " +
                           (method.is_explicit() ? "is explicit" : "iterates without linear solves"));
  const std::string name = solver.string("linear_solver", "auto");
  const auto* found = std::find_if(std::begin(kSolvers), std::end(kSolvers), [&](const auto& s) { return s.first == name; });
  if (found == std::end(kSolvers))
    solver.fail("linear_solver", "unknown linear solver '" + name + "' (known: auto, dense, klu, gmres, cg)");
  const LinearSolver choice = config.linear_solver = found->second;
  const bool krylov = choice == LinearSolver::gmres || choice == LinearSolver::cg;
  if ((choice == LinearSolver::sparse || krylov) && !declares_sparsity(config))
    solver.fail("linear_solver", name + " needs a model that declares its sparsity pattern; '" + config.model +
                                     "' does not (use auto or dense)");
  const std::string preconditioner = solver.string("preconditioner", "auto");
  const auto* kind = std::find_if(std::begin(kPreconditioners), std::end(kPreconditioners),
                                  [&](const auto& s) { return s.first == preconditioner; });
  if (kind == std::end(kPreconditioners))
    solver.fail("preconditioner",
                "unknown preconditioner '" + preconditioner + "' (known: auto, none, jacobi, ilu, multigrid)");
  config.preconditioner = kind->second;
  if (config.preconditioner != PreconditionerKind::automatic &&
      (choice == LinearSolver::dense || choice == LinearSolver::sparse))
    solver.fail("preconditioner", "is for gmres or cg; linear_solver is '" + name + "'");
  if (config.preconditioner == PreconditionerKind::multigrid && !on_grid(config))
    solver.fail("preconditioner", "multigrid coarsens a [grid]; '" + config.model +
                                      "' is not on one (take ilu or jacobi)");
  config.krylov_tolerance = solver.optional_number("krylov_tolerance");
  if (config.krylov_tolerance && !(*config.krylov_tolerance > 0.0 && *config.krylov_tolerance < 1.0))
    solver.fail("krylov_tolerance", "must be > 0 and < 1");
  if (config.krylov_tolerance && (choice == LinearSolver::dense || choice == LinearSolver::sparse))
    solver.fail("krylov_tolerance", "is for gmres or cg; linear_solver is '" + name + "'");
}

// solver.backend: where the work runs, checked against the backends' table
// (backends.hpp): a model or method that cannot run there is refused here, by key,
// saying where it runs.
void read_backend(const TomlSection& root, const TomlSection& solver, SimulateSpec& config) {
  config.backend = solver.string("backend", std::string(default_backend().name));
  const Method& method = method_of(config);
  const std::string refusal = backend_refusal(config.backend, config.kind, config.model, method.is_explicit(),
                                              method.name(), root.has("ensemble") || root.has("data"));
  if (!refusal.empty()) solver.fail("backend", refusal);
}

// solver.kernels: compiled | interpreted, and solver.kernel_cache, for equations on a grid.
// Backend omp runs them compiled on its threads, or runs members or starts in parallel.
void read_kernels(const TomlSection& solver, SimulateSpec& config, bool parallel_runs) {
  // Compiled by default on a grid; an ODE's compile (about a second, once: then cached)
  // pays only in long runs and fits, so there it is asked for.
  const bool on_grid = config.kind == ModelKind::equations && config.layout;
  const std::string kernels = solver.string("kernels", on_grid ? "compiled" : "interpreted");
  if (kernels != "compiled" && kernels != "interpreted")
    solver.fail("kernels", "unknown kernels '" + kernels + "' (known: compiled, interpreted)");
  if (kernels == "compiled" && config.kind != ModelKind::equations)
    solver.fail("kernels", "compiled kernels are built for models defined by equations");
  config.compiled_kernels = kernels == "compiled";
  config.kernel_cache = solver.string("kernel_cache", "");
  if (solver.has("kernel_cache") && config.kernel_cache.empty()) solver.fail("kernel_cache", "must name a folder");
  // The backend's own kernels where it has no interpreter (omp runs an ODE's equations
  // interpreted or compiled, and members or starts in parallel whatever their model).
  if (config.kind != ModelKind::equations || config.compiled_kernels) return;
  const BackendEntry& backend = *find_backend(config.backend);
  if (on_grid && backend.interpreted != Interpreted::anywhere && !(parallel_runs && backend.parallel_runs))
    solver.fail("backend",
                config.backend + " runs equations on a grid as compiled kernels (solver.kernels = \"compiled\")");
  if (!on_grid && backend.interpreted == Interpreted::nowhere)
    solver.fail("backend", config.backend + " runs equations on a [grid]; this model's run on " +
                               std::string(default_backend().name));
}

void read_solver(const TomlSection& root, SimulateSpec& config) {
  IntegrateOptions& options = config.integrate;
  const auto solver = root.subsection("solver");
  if (!solver) return;
  solver->reject_unknown_keys(
      {"method", "step", "rtol", "atol", "max_steps", "initial_step", "min_step", "max_step",
       "newton_tolerance", "linear_solver", "preconditioner", "krylov_tolerance", "backend", "kernels",
       "kernel_cache"});
  const std::string name = solver->string("method", "dopri5");
  const Method* method = find_method(name);
  if (!method) {
    std::vector<std::string_view> names;
    for (const Method& m : all_methods) names.push_back(m.name());
    solver->fail("method", "unknown method '" + name + "' (known: " + joined(names) + ")");
  }
  config.method_name = name;
  config.newton_tolerance = solver->optional_number("newton_tolerance");
  if (config.newton_tolerance && !(*config.newton_tolerance > 0.0)) solver->fail("newton_tolerance", "must be > 0");
  if (solver->has("newton_tolerance") && !method->implicit())
    solver->fail("newton_tolerance", "is for implicit methods; '" + name + "' is explicit");
  read_linear_solver(*solver, config);
  read_backend(root, *solver, config);
  read_kernels(*solver, config, root.has("ensemble") || root.has("data"));
  options.step = solver->number("step", 0.0);
  config.step_at = solver->position("step");
  if (solver->has("step") && !(options.step > 0.0)) solver->fail("step", "must be > 0");
  if (solver->has("step") && !method->takes_fixed_step())
    solver->fail("step", "CVODES chooses its own steps: give rtol and atol instead");
  if (options.step == 0.0 && !method->adaptive())
    solver->fail("step", "method '" + name +
                             "' has no error estimate, so it needs a fixed step size");
  options.rtol = solver->number("rtol", options.rtol);
  options.atol = solver->number("atol", options.atol);
  if (!(options.rtol > 0.0)) solver->fail("rtol", "must be > 0");
  if (!(options.atol >= 0.0)) solver->fail("atol", "must be >= 0");
  options.max_steps = solver->count("max_steps", options.max_steps);
  if (options.max_steps == 0) solver->fail("max_steps", "must be at least 1");
  options.initial_step = solver->number("initial_step", 0.0);
  options.min_step = solver->number("min_step", 0.0);
  options.max_step = solver->number("max_step", options.max_step);
  if (options.initial_step < 0.0) solver->fail("initial_step", "must be >= 0");
  if (options.min_step < 0.0) solver->fail("min_step", "must be >= 0");
  if (!(options.max_step > 0.0)) solver->fail("max_step", "must be > 0");
  if (options.min_step > options.max_step) solver->fail("min_step", "must not exceed max_step");
}

}  // namespace

ExpressionScope expression_scope(const SimulateSpec& config) {
  if (const GridLayout* fields = config.fields())
    return model_scope(*fields, config.scalar_parameter_names(), config.constants);
  return model_scope(config.state_names, config.parameter_names, config.constants);
}

ExpressionScope initial_value_scope(const SimulateSpec& config) {
  ExpressionScope scope(config.parameter_names);
  for (const NamedConstant& constant : config.constants) scope.add_constant(constant.name, constant.value);
  scope.add_constant("t", config.integrate.t0);
  return scope;
}

SimulateSpec simulate_spec(const ConfigFile& file) {
  const TomlSection root(file);
  SimulateSpec config = detail::read_simulate_sections(root);
  // Every fixed step kept: the trajectory's size is known now, and is refused now if no
  // machine like this one could hold it (twice: a growing array copies itself).
  const IntegrateOptions& options = config.integrate;
  if (options.step > 0.0 && options.output_times.empty()) {
    const double steps = std::min(std::ceil((options.t1 - options.t0) / options.step), double(options.max_steps));
    const double bytes = 2.0 * (steps + 1.0) * double(config.initial_state.size() + 1) * sizeof(double);
    if (const double memory = double(detail::machine_memory()); memory > 0.0 && bytes > memory) {
      std::ostringstream why;  // in doubles: these may pass any integer type
      why.precision(3);
      why << "keeping every one of " << steps << " steps takes " << bytes << " bytes, more than this machine's "
          << memory << ": write fewer with [time] output_step or output";
      root.subsection("solver")->fail("step", why.str());
    }
  }
  return config;
}

void detail::reject_unknown_sections(const TomlSection& root) { root.reject_unknown_keys(kSections); }

SimulateSpec detail::read_simulate_sections(const TomlSection& root) {
  reject_unknown_sections(root);
  SimulateSpec config;
  config.file = root.position("").file;
  detail::read_model_section(root, config);
  read_time(root, config);  // initial values may read t at the start
  detail::read_parameters_and_initial(root, config);
  read_solver(root, config);
  config.events = detail::read_events(root, config);
  // By default each config writes to a folder of its own, so runs do not overwrite each other.
  config.output_dir = (std::filesystem::path("out") / std::filesystem::path(config.file).stem()).string();
  if (auto output = root.subsection("output")) {
    output->reject_unknown_keys({"dir", "vtk"});
    config.output_dir = output->string("dir", config.output_dir);
    if (config.output_dir.empty()) output->fail("dir", "must not be empty");
    if (output->has("vtk")) {
      const auto vtk = output->table().get("vtk");
      if (!vtk->is_boolean()) output->fail("vtk", "must be true or false");
      config.vtk = vtk->value<bool>().value_or(false);
      if (config.vtk && !config.fields()) output->fail("vtk", "writes the fields of a model on a grid ([grid])");
    }
  }
  std::error_code error;  // a file in the way is found now, not after the run
  if (std::filesystem::exists(config.output_dir, error) && !std::filesystem::is_directory(config.output_dir, error)) {
    const std::string problem = "is a file, not a folder: " + config.output_dir;
    if (auto output = root.subsection("output"); output && output->has("dir")) output->fail("dir", problem);
    root.fail("output", "the default output folder " + problem);
  }
  return config;
}

}  // namespace backsweep
