#pragma once
// The part of a backsweep config file that `simulate` reads: [model], [parameters],
// [initial], [time], [solver], [[events]], [output] (docs/config.md documents every key), as a spec:
// names, numbers and formulas with their places in the file. Nothing here is built for
// the engine; io/assembly/simulate_config.hpp builds the model and the method from it.
#include <optional>
#include <string>
#include <vector>

#include "io/config/backends.hpp"
#include "io/config/event_spec.hpp"
#include "io/config/formula.hpp"
#include "models/builtin/acoustic.hpp"
#include "models/expression_model.hpp"
#include "models/grid_layout.hpp"
#include "solvers/integrate_options.hpp"
#include "solvers/linear_solver.hpp"

namespace backsweep {

struct ConfigFile;  // io/config/config_file.hpp

struct SimulateSpec {
  std::string file;                    // the config file it came from
  // The built-in model's or grid kernel's name, or "expression" for a model whose
  // equations the file defines.
  std::string model;
  ModelKind kind = ModelKind::builtin_ode;
  std::size_t model_points = 0;        // grid points of a built-in grid ODE (0: its default)
  std::optional<GridLayout> layout;    // on a [grid]: the grid, its fields and parameter fields
  std::vector<Formula> equations;      // a defined model's: one per state (per field on a grid)
  std::string sbml_file;               // model.sbml: the SBML file that defined it, if one did
  models::AcousticSource source;       // the acoustic kernel's [model.source]
  std::vector<std::string> state_names, parameter_names;
  std::vector<NamedConstant> constants;  // [model.constants], usable in every expression
  std::vector<double> parameters, initial_state;
  // Per state: the [initial] formula of the parameters it came from, or nothing where it
  // was a number. initial_state holds the values at `parameters`.
  std::vector<std::optional<Formula>> initial_formulas;
  std::string method_name = "dopri5";  // [solver] method (solvers/method.hpp's names)
  std::optional<double> newton_tolerance;
  LinearSolver linear_solver = LinearSolver::automatic;
  PreconditionerKind preconditioner = PreconditionerKind::automatic;
  std::optional<double> krylov_tolerance;
  IntegrateOptions integrate;
  std::vector<EventSpec> events;       // [[events]]: jumps at given times
  SourcePosition step_at;              // [solver] step's, for errors found once the model is built
  std::string output_dir;              // relative to the working directory
  bool vtk = false;                    // [output] vtk: also VTK files of the fields (grids)
  std::string backend{default_backend().name};  // [solver] backend (backends.hpp)
  // [solver] kernels: equations on a grid run as native code built at run time (else by
  // the interpreter), kept in [solver] kernel_cache ("": default_kernel_cache()).
  bool compiled_kernels = true;
  std::string kernel_cache;

  // Where the numbers of a model on a grid ([grid]) live, else null.
  const GridLayout* fields() const { return layout ? &*layout : nullptr; }
  // On a grid: the scalar parameters' names (parameter_names lists every point's too).
  std::vector<std::string> scalar_parameter_names() const {
    const std::size_t count = fields() ? fields()->scalar_parameters() : parameter_names.size();
    return {parameter_names.begin(), parameter_names.begin() + std::ptrdiff_t(count)};
  }
};

// Reads and validates a config file's simulate sections. Throws ConfigError (file, line,
// key) on any problem.
SimulateSpec simulate_spec(const ConfigFile& file);

// The names expressions of (t, y, p) in this config may use (objective terms; the
// equations of a defined model): t, the states, the parameters and the constants.
ExpressionScope expression_scope(const SimulateSpec& spec);
// Where initial values are parsed: the parameters, the constants, and t at the start.
ExpressionScope initial_value_scope(const SimulateSpec& spec);

}  // namespace backsweep
