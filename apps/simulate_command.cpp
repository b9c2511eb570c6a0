#include "apps/simulate_command.hpp"

#include <algorithm>
#include <filesystem>
#include <iostream>

#include <nlohmann/json.hpp>

#include "apps/error_report.hpp"
#include "apps/exit_codes.hpp"
#include "apps/run_record.hpp"
#include "apps/field_outputs.hpp"
#include "apps/load_config.hpp"
#include "apps/progress_display.hpp"
#include "io/simulate_config.hpp"
#include "io/trajectory.hpp"
#include "io/visit_model.hpp"
#include "solvers/solve.hpp"

namespace backsweep::apps {

const char* const kSimulateHelp = R"(Config keys read by simulate (see docs/config.md):
  [model]       name        built-in model: lorenz63 van_der_pol lotka_volterra
                            harmonic_oscillator robertson brusselator_1d (points = N);
                            on a [grid]: gray_scott heat advection_diffusion acoustic
                            (hand-written kernels; acoustic takes its source in
                            [model.source] point = [i, j], f0, t0, amplitude)
                or a model defined here (no name then):
                states      state names, e.g. ["S", "I", "R"]
                parameters  parameter names, e.g. ["beta", "gamma"]
                fields, parameter_fields  on a [grid]: field names, e.g. ["u", "v"]
  [model.equations] <state> = "expr"  one right-hand side per state, e.g. "gamma*I":
                            an expression of t, the states, parameters and constants;
                            on a grid per field, with lap dx dy dz div_grad(k, u)
  [model.constants] <name> = v  named numbers for every expression (besides pi and e)
  [grid]        shape       points per axis, 1 to 3 axes, e.g. [64, 64]
                extent      the domain's length per axis
                boundary    periodic | dirichlet | neumann, or one per axis
  [parameters]  <name> = v  parameter values by name (defaults: a built-in model's
                            standard ones; a defined model needs every one); a
                            parameter field: a number, an expression of x, y, z, or
                            { file = "k.h5" or "k.vti" }
  [initial]     <name> = v  initial state by name: a number, or an expression of the
                            parameters and constants such as "N - i0" (defaults: a
                            built-in model's standard one; a defined model needs every
                            one); on a grid per field, as parameter fields
  [time]        start       start time (default 0)
                end         end time (required, > start)
                output      times written out, strictly increasing, hit exactly
                output_step or: write every output_step (default: every accepted step)
  [solver]      method      explicit: euler heun kutta3 heun3 rk4 ssprk3 (fixed step),
                            bs32 dopri5 tsit5 (adaptive or fixed; default dopri5);
                            implicit: backward_euler crank_nicolson sdirk2 esdirk3
                            sdirk4; CVODES: cvodes_bdf cvodes_adams (rtol, atol)
                step        fixed step size; omit for adaptive stepping
                rtol, atol  tolerances of adaptive stepping (default 1e-6, 1e-9)
                max_steps   failure after this many steps (default 1000000)
                initial_step  first adaptive step (default: chosen automatically)
                min_step, max_step  adaptive step limits (default: a few ulps of t, none)
                newton_tolerance, linear_solver (auto | dense | sparse)  implicit methods
                backend     cpu (default) | omp: the hand-written grid models' gradients
                            on the OpenMP backend, [ensemble] members and a fit's
                            starts in parallel
  [output]      dir         output folder, relative to the working directory (default
                            out/<config file name without .toml>)
                vtk         true: also the fields as VTK series for ParaView (grids)
Writes <dir>/trajectory.csv and <dir>/trajectory.h5 (/time, /states, attributes); on a
grid trajectory.h5 (/fields/<name>) and, with vtk, states.pvd.
Exit codes: 0 ok, 1 the run failed, 2 bad input.)";

namespace {

// On a grid: the times, and per field its range at the last time (the fields themselves
// are in trajectory.h5, /fields/<name>).
nlohmann::json fields_json(const Trajectory& trajectory, const GridLayout& fields) {
  nlohmann::json json = nlohmann::json::object();
  const std::size_t points = fields.grid().points(), n = trajectory.state_names.size();
  const double* last = trajectory.states.data() + (trajectory.times.size() - 1) * n;
  for (const NamedField& field : split_fields(fields.fields(), last, points)) {
    const auto [low, high] = std::minmax_element(field.values.begin(), field.values.end());
    json[field.name] = {{"final_min", *low}, {"final_max", *high}};
  }
  return {{"times", trajectory.times}, {"fields", json}};
}

nlohmann::json to_json(const Trajectory& trajectory) {
  nlohmann::json states = nlohmann::json::object();
  const std::size_t n = trajectory.state_names.size();
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<double> column;
    for (std::size_t row = 0; row < trajectory.times.size(); ++row)
      column.push_back(trajectory.states[row * n + i]);
    states[trajectory.state_names[i]] = column;
  }
  return {{"times", trajectory.times}, {"states", states}};
}

}  // namespace

int run_simulate(const std::string& config_path, bool json) {
  const auto loaded = load_config(load_simulate_config, config_path);
  if (!loaded) return kExitBadInput;
  const SimulateConfig& config = *loaded;

  Trajectory trajectory;
  trajectory.model = config.model;
  trajectory.method = std::string(config.method.name());
  trajectory.state_names = config.state_names;
  trajectory.parameter_names = config.parameter_names;
  trajectory.parameters = config.parameters;
  if (const GridLayout* fields = config.fields()) {  // fields by name; the scalar parameters
    trajectory.field_names = fields->fields();
    trajectory.grid_shape = fields->grid().shape();
    trajectory.parameter_names = config.scalar_parameter_names();
    trajectory.parameters.resize(trajectory.parameter_names.size());
  }
  IntegrateResult result;
  visit_model(config, [&](const auto& model) {
    ProgressDisplay display("simulate", config.integrate.t0, config.integrate.t1, false);
    IntegrateOptions options = config.integrate;
    options.progress = display.progress();
    std::vector<double> y = config.initial_state;
    const auto append = [&](double t, const double* state) { trajectory.append(t, state); };
    result = solve_forward(model, config.method, y.data(), config.parameters.data(), options, append);
  });
  if (!result.ok()) {
    std::string message = result.message;  // the component by its name
    const std::string component = "state component " + std::to_string(result.failed_component);
    if (const auto at = message.find(component);
        result.status == IntegrateStatus::non_finite_state && at != std::string::npos &&
        result.failed_component < config.state_names.size())
      message.replace(at, component.size(), "state '" + config.state_names[result.failed_component] + "'");
    report_error(config_path, ": the simulation failed (", to_string(result.status), "): ", message);
    return kExitRunFailed;
  }

  const GridLayout* fields = config.fields();
  try {
    OutputSet outputs(config.output_dir);
    write_trajectory_files(trajectory, outputs.staging().string());
    if (fields && config.vtk) {
      std::vector<FieldSnapshot> snapshots;
      const std::size_t n = trajectory.state_names.size();
      const std::vector<NamedField> constant = parameter_fields(*fields, config.parameters);
      for (std::size_t k = 0; k < trajectory.times.size(); ++k) {
        snapshots.push_back({trajectory.times[k], split_fields(fields->fields(), trajectory.states.data() + k * n,
                                                               fields->grid().points())});
        snapshots.back().fields.insert(snapshots.back().fields.end(), constant.begin(), constant.end());
      }
      write_vtk_series(outputs.staging().string(), "states", fields->grid(), snapshots);
    }
    commit_outputs(outputs, "simulate");
  } catch (const std::exception& error) {
    report_error(error.what());
    return kExitRunFailed;
  }
  std::cerr << "simulate: " << config.model << " with " << config.method.name() << ", "
            << result.steps << " steps (" << result.rejected_steps << " rejected), "
            << result.rhs_evaluations << " RHS evaluations; wrote " << config.output_dir
            << (config.fields() ? "/trajectory.h5" : "/trajectory.{csv,h5}") << (config.fields() && config.vtk ? " and states.pvd" : "") << "\n";
  if (json) std::cout << (fields ? fields_json(trajectory, *fields) : to_json(trajectory)).dump() << '\n';
  return kExitOk;
}

}  // namespace backsweep::apps
