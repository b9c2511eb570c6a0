#include "apps/gradient_command.hpp"

#include <iostream>
#include <optional>

#include "apps/config_gradient.hpp"
#include "apps/ensemble_gradient.hpp"
#include "apps/error_report.hpp"
#include "apps/exit_codes.hpp"
#include "apps/fit_command.hpp"
#include "apps/gradient_report.hpp"
#include "apps/grid_split_gradient.hpp"
#include "apps/json_number.hpp"
#include "apps/load_config.hpp"
#include "apps/petab_commands.hpp"
#include "apps/progress_display.hpp"
#include "apps/command_io.hpp"
#include "apps/run_record.hpp"
#include "apps/shadowing_command.hpp"
#include "platform/output_set.hpp"
#include "platform/ranks.hpp"
#include "solvers/context.hpp"

namespace backsweep::apps {

int run_gradient(const ConfigFile& file, CommandIO& io) {
  if (file.petab) return run_petab_gradient(file, io);
  if (file.is_fit()) return run_fit_gradient(file, io);
  auto loaded = load_config(io.error, gradient_config, file);
  if (!loaded) return kExitBadInput;
  io.use_given_fields(loaded->simulate);
  const std::string& config_path = file.path;
  Context context;  // what the gradients (an ensemble's members too) draw memory from
  loaded->simulate.integrate.context = &context;
  const GradientConfig& config = *loaded;
  const SimulateConfig& sim = config.simulate;

  // Histograms per output interval, or ten equal intervals.
  MonitorOptions monitor = config.monitor;
  monitor.interval_times = sim.integrate.output_times;
  if (monitor.interval_times.empty())
    for (int k = 1; k < 10; ++k)
      monitor.interval_times.push_back(sim.integrate.t0 +
                                       (sim.integrate.t1 - sim.integrate.t0) * k / 10.0);
  if (config.ensemble) return run_ensemble_gradient(config, config_path, monitor, io);
  if (config.shadowing) return run_shadowing_gradient(config, config_path, io);
  // A grid split into blocks of planes, a rank each, writes a VTK piece a block.
  const int pieces = splits_grid(config) ? ranks::count() : 1;
  if (pieces > 1) io.split = "grid";

  // On a grid with [output] vtk: the states and the adjoint fields at the field times,
  // from the gradient's own sweeps.
  std::optional<FieldRecorder> recorder;
  if (sim.fields() && sim.vtk) recorder.emplace(sim, sim.parameters);
  KernelUse device_kernels;
  const GradientResult<double> result = [&] {
    ProgressDisplay display("gradient", sim.integrate.t0, sim.integrate.t1, config.mode == GradientMode::adjoint);
    return config_gradient(config, monitor, sim.initial_state, sim.parameters,
                           recorder ? recorder->observers() : GradientObservers{}, display.progress(),
                           &device_kernels);
  }();
  if (const auto& refused = result.diagnostics.refused) {
    report_error(io.error, config.checkpointing.refusal_error(*refused));
    return kExitBadInput;
  }
  if (!result.ok()) {
    const auto& nonfinite = result.diagnostics.nonfinite;
    report_error(io.error, config_path, ": the gradient failed (", to_string(result.status),
                 "): ", nonfinite ? nonfinite->describe(sim.state_names) : result.message);
    if (nonfinite)
      io.error.run = {{"phase", nonfinite->phase}, {"step", nonfinite->step}, {"time", nonfinite->time},
                      {"state", nonfinite->component < sim.state_names.size() ? sim.state_names[nonfinite->component]
                                                                              : std::to_string(nonfinite->component)}};
    return result.status == IntegrateStatus::invalid_options ? kExitBadInput : kExitRunFailed;
  }

  const GradientOutput record = gradient_record(config, result, monitor.tolerance, device_kernels);
  note_unreached_events(record.events);
  print_gradient(record, std::string(sim.method.name()), io.text());
  keep_gradient_arrays(record, io);
  if (const auto& report = result.diagnostics.monitor;
      report && report->verdict != GrowthVerdict::stable)
    std::cerr << "warning: the " << to_string(report->watched) << " monitor says " << to_string(report->verdict) << ": "
              << report->explanation
              << (report->verdict == GrowthVerdict::chaotic_divergence
                      ? " For the derivative of a long-time average: gradient.mode = \"shadowing\" with "
                        "objective.integral alone (its integrand averaged), [shadowing] segment_length, segments, "
                        "unstable (docs/config.md, Shadowing)."
                      : "")
              << '\n';
  if (const auto& linear = result.diagnostics.linear_solves)
    if (const std::string advice =
            linear_solver_advice(*linear, result.diagnostics.forward_seconds + result.diagnostics.backward_seconds);
        !advice.empty())
      std::cerr << "warning: " << advice << '\n';
  if (recorder)
    for (double t : recorder->missed())
      std::cerr << "warning: output time " << t << " is not on the gradient's step grid: no state or "
                << "adjoint fields there (make it a multiple of solver.step)\n";
  if (io.writes_outputs()) try {
    OutputSet outputs(sim.output_dir);
    const std::string staging = outputs.staging().string();
    write_gradient_hdf5(record, staging + "/gradient.h5", io.run);
    if (recorder)
      write_gradient_vtk(staging, sim.fields()->grid(), *recorder, record, sim.integrate.t0, pieces);
    commit_outputs(outputs, "gradient", io.run);
  } catch (const std::exception& error) {
    report_error(io.error, error.what());
    return kExitRunFailed;
  }
  io.finish(gradient_json(record));
  return kExitOk;
}

}  // namespace backsweep::apps
