#include "apps/gradient_command.hpp"

#include <cmath>
#include <filesystem>
#include <iostream>
#include <optional>

#include <nlohmann/json.hpp>

#include "apps/config_gradient.hpp"
#include "apps/progress_display.hpp"
#include "apps/ensemble_gradient.hpp"
#include "apps/error_report.hpp"
#include "apps/exit_codes.hpp"
#include "apps/field_outputs.hpp"
#include "apps/json_number.hpp"
#include "apps/results_stream.hpp"
#include "apps/run_record.hpp"
#include "apps/load_config.hpp"
#include "apps/fit_command.hpp"
#include "io/fit_config.hpp"
#include "io/gradient_config.hpp"
#include "io/gradient_output.hpp"

namespace backsweep::apps {

const char* const kGradientHelp = R"(Config keys read by gradient, besides those of simulate (see docs/config.md):
  [objective]    terminal    expression of t, states, parameters, constants at time.end
                 integral    running cost, integrated over [start, end] by the same method
  [[objective.observation]]  time = 0.5, formula = "(x - 1.2)^2"  (repeatable)
  [gradient]     parameters  names to report (default: all); dJ/dp includes the path
                             through [initial] expressions of the parameters
                 initial     also dJ/d(initial state) (default true)
                 mode        auto | adjoint | tangent (auto: tangent when the states and
                             parameters number at most 8, one Dual chunk; else adjoint)
  [checkpointing] schedule   auto | store_all | revolve | online | two_level (auto:
                             store_all when nothing bounds memory or every step fits the
                             memory budget; else revolve for fixed steps, online for
                             adaptive ones; two_level when a disk budget costs fewer
                             recomputations; the diagnostics say which and why)
                 slots       memory slots, the initial state's included (default 100)
                 memory      or a budget for everything the gradient keeps, e.g. "64MiB"
                             (slots, their place on the step grid, the monitor's history)
                 disk        a budget for disk slots, e.g. "2GiB": an HDF5 file in
                             output.dir, removed when the run ends or is stopped
                 storage     float64 (default) | float32: half the memory, rounded states
  [monitor]      tolerance   relative accuracy the gradient must keep (default 1e-6): growth
                             of the adjoint beyond 1/tolerance is chaotic_divergence
                 growing_amplification  growth beyond this is `growing` (default 10)
                 windows     windows of the robust growth-rate fit (default 32)
  [ensemble]     members     a CSV file: a header of parameter and initial-state names,
                             then a row a member; or samples = N seeded Latin-hypercube
                             members (seed, default 1) in [ensemble.ranges]
                             name = [lower, upper]. A gradient a member in gradient.h5;
                             solver.backend = "omp" runs the members in parallel
A fit config ([data] and no [objective], see fit --help) gives the negative
log-likelihood and its gradient for the estimated parameters, in scaled and linear space.
Prints the objective and gradient (--json: one JSON object on stdout), warns on stderr
when the adjoint grows, and writes <output.dir>/gradient.h5.
Exit codes: 0 ok, 1 the run failed, 2 bad input.)";

namespace {

nlohmann::json diagnostics_json(const GradientDiagnostics& d, const std::string& mode) {
  nlohmann::json j = record_json(diagnostics_record(d, mode));
  j["monitor"] = d.monitor ? record_json(monitor_record(*d.monitor)) : nlohmann::json();
  return j;
}

}  // namespace

int run_gradient(const std::string& config_path, bool json) {
  if (is_fit_config(config_path)) return run_fit_gradient(config_path, json);
  const auto loaded = load_config(load_gradient_config, config_path);
  if (!loaded) return kExitBadInput;
  const GradientConfig& config = *loaded;
  const SimulateConfig& sim = config.simulate;
  const std::size_t n = sim.state_names.size();
  const std::string mode = to_string(config.mode);

  // Histograms per output interval, or ten equal intervals.
  MonitorOptions monitor = config.monitor;
  monitor.interval_times = sim.integrate.output_times;
  if (monitor.interval_times.empty())
    for (int k = 1; k < 10; ++k)
      monitor.interval_times.push_back(sim.integrate.t0 +
                                       (sim.integrate.t1 - sim.integrate.t0) * k / 10.0);
  if (config.ensemble) return run_ensemble_gradient(config, config_path, monitor, json);

  // On a grid with [output] vtk: the states and the adjoint fields at the field times,
  // from the gradient's own sweeps.
  const GridLayout* fields = sim.fields();
  const bool vtk = fields && sim.vtk;
  std::optional<FieldRecorder> recorder;
  if (vtk) recorder.emplace(sim, sim.parameters);
  const GradientResult<double> result = [&] {
    ProgressDisplay display("gradient", sim.integrate.t0, sim.integrate.t1, config.mode == GradientMode::adjoint);
    return config_gradient(config, monitor, sim.initial_state, sim.parameters,
                           recorder ? recorder->observers() : GradientObservers{}, display.progress());
  }();
  if (const auto& refused = result.diagnostics.refused) {
    report_error(config.checkpointing.refusal_error(*refused));
    return kExitBadInput;
  }
  if (!result.ok()) {
    const auto& nonfinite = result.diagnostics.nonfinite;
    report_error(config_path, ": the gradient failed (", to_string(result.status),
                 "): ", nonfinite ? nonfinite->describe(sim.state_names) : result.message);
    return result.status == IntegrateStatus::invalid_options ? kExitBadInput : kExitRunFailed;
  }

  GradientOutput output{sim.model, mode, result.value, {}, {}, {}, {}, result.diagnostics,
                        monitor.tolerance, {}, {}, {}};
  nlohmann::json parameters = nlohmann::json::object(), initial = nlohmann::json::object();
  results_stream(json) << "gradient (" << mode << ", " << sim.method.name() << ", " << result.diagnostics.steps
                       << " steps): J = " << result.value << '\n';
  for (std::size_t j : config.parameters) {
    parameters[sim.parameter_names[j]] = result.dJ_dp[j];
    output.parameter_names.push_back(sim.parameter_names[j]);
    output.dJ_dp.push_back(result.dJ_dp[j]);
    results_stream(json) << "  dJ/d" << sim.parameter_names[j] << " = " << result.dJ_dp[j] << '\n';
  }
  nlohmann::json parameter_fields;
  if (fields) {  // fields are reported by name, whole, with their norms
    const std::size_t points = fields->grid().points(), scalars = fields->scalar_parameters();
    output.grid_shape = fields->grid().shape();
    if (config.initial) output.initial_fields = split_fields(fields->fields(), result.dJ_dy0.data(), points);
    output.parameter_fields = split_fields(fields->parameter_fields(), result.dJ_dp.data() + scalars, points);
    initial = field_norms_json(output.initial_fields, "/gradient/initial");
    parameter_fields = field_norms_json(output.parameter_fields, "/gradient/parameter_fields");
    for (const auto* group : {&initial, &parameter_fields})
      for (const auto& [name, entry] : group->items())
        results_stream(json) << "  |dJ/d" << name << (group == &initial ? "(0)" : "")
                             << "| = " << entry["norm"].get<double>()
                             << "  (gradient.h5:" << entry["dataset"].get<std::string>() << ")\n";
  } else if (config.initial) {
    output.state_names = sim.state_names;
    output.dJ_dy0 = result.dJ_dy0;
    for (std::size_t i = 0; i < n; ++i) {
      initial[sim.state_names[i]] = result.dJ_dy0[i];
      results_stream(json) << "  dJ/d" << sim.state_names[i] << "(0) = " << result.dJ_dy0[i] << '\n';
    }
  }
  if (const auto& report = result.diagnostics.monitor;
      report && report->verdict != GrowthVerdict::stable)
    std::cerr << "warning: the adjoint monitor says " << to_string(report->verdict) << ": "
              << report->explanation << '\n';
  if (recorder)
    for (double t : recorder->missed())
      std::cerr << "warning: output time " << t << " is not on the gradient's step grid: no state or "
                << "adjoint fields there (make it a multiple of solver.step)\n";
  try {
    OutputSet outputs(sim.output_dir);
    const std::string staging = outputs.staging().string();
    write_gradient_hdf5(output, staging + "/gradient.h5");
    if (recorder) {
      const Grid& grid = fields->grid();
      write_vtk_series(staging, "states", grid, recorder->states());
      if (const auto adjoints = recorder->adjoints(); !adjoints.empty())  // adjoint mode, our steppers
        write_vtk_series(staging, "adjoint", grid, adjoints);
      FieldSnapshot gradient_fields{sim.integrate.t0, renamed(output.initial_fields, initial_gradient_name)};
      for (NamedField& field : renamed(output.parameter_fields, gradient_name))
        gradient_fields.fields.push_back(std::move(field));
      write_vtk_series(staging, "gradient", grid, {gradient_fields});
    }
    commit_outputs(outputs, "gradient");
  } catch (const std::exception& error) {
    report_error(error.what());
    return kExitRunFailed;
  }
  if (json) {
    nlohmann::json gradient = {{"parameters", parameters}};
    if (config.initial) gradient["initial"] = initial;
    if (fields) gradient["parameter_fields"] = parameter_fields;
    std::cout << nlohmann::json{{"objective", result.value},
                                {"gradient", gradient},
                                {"diagnostics", diagnostics_json(result.diagnostics, mode)}}
                     .dump()
              << '\n';
  }
  return kExitOk;
}

}  // namespace backsweep::apps
