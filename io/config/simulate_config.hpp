#pragma once
// The part of a backsweep config file that `simulate` reads: [model], [parameters],
// [initial], [time], [solver], [output] (docs/config.md documents every key).
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/builtin/grid_kernels.hpp"
#include "models/expression_model.hpp"
#include "solvers/integrate_options.hpp"
#include "solvers/method.hpp"

namespace backsweep {

struct SimulateConfig {
  std::string file;                    // the config file it came from
  // The built-in model's name, or "expression" for a model whose equations the file
  // defines (then expression_model is set). A hand-written grid model named on a [grid]
  // sets grid_kernel.
  std::string model;
  std::size_t model_points = 0;        // grid points of a built-in grid model (0: its default)
  std::shared_ptr<const ExpressionModel> expression_model;
  std::shared_ptr<const models::GridKernel> grid_kernel;
  std::vector<std::string> state_names, parameter_names;
  std::vector<NamedConstant> constants;  // [model.constants], usable in every expression
  std::vector<double> parameters, initial_state;
  // Per state: the [initial] expression of the parameters it came from (evaluate it
  // with the parameter values), or nothing where it was a number. initial_state holds
  // the values at `parameters`.
  std::vector<std::optional<Expression>> initial_expressions;
  Method method = tableaux::dopri5;     // [solver] method, see find_method
  IntegrateOptions integrate;
  std::string output_dir;              // relative to the working directory
  bool vtk = false;                    // [output] vtk: also VTK files of the fields (grids)
  std::string backend = "cpu";         // [solver] backend: cpu, or omp for [ensemble] members

  // Where the numbers of a model on a grid ([grid]) live, else null.
  const GridLayout* fields() const {
    if (grid_kernel) return &grid_kernel->layout;
    return expression_model ? expression_model->fields() : nullptr;
  }
  // On a grid: the scalar parameters' names (parameter_names lists every point's too).
  std::vector<std::string> scalar_parameter_names() const {
    const std::size_t count = fields() ? fields()->scalar_parameters() : parameter_names.size();
    return {parameter_names.begin(), parameter_names.begin() + std::ptrdiff_t(count)};
  }
};

// Reads and validates a config file. Throws ConfigError (file, line, key) on any problem.
SimulateConfig load_simulate_config(const std::string& path);

// The names expressions of (t, y, p) in this config may use (objective terms; the
// equations of a defined model): t, the states, the parameters and the constants.
ExpressionScope expression_scope(const SimulateConfig& config);

}  // namespace backsweep
