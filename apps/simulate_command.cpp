#include "apps/simulate_command.hpp"

#include <iostream>
#include <optional>

#include "apps/error_report.hpp"
#include "apps/exit_codes.hpp"
#include "apps/json_number.hpp"
#include "apps/load_config.hpp"
#include "apps/petab_commands.hpp"
#include "apps/progress_display.hpp"
#include "apps/run_record.hpp"
#include "apps/simulate_report.hpp"
#include "apps/engine_of.hpp"
#include "io/assembly/visit_model.hpp"
#include "io/config/backends.hpp"
#include "platform/output_set.hpp"

namespace backsweep::apps {

int run_simulate(const ConfigFile& file, CommandIO& io) {
  if (file.petab) return run_petab_simulate(file, io);
  auto loaded = load_config(io.error, simulate_config, file);
  if (!loaded) return kExitBadInput;
  io.use_given_fields(*loaded);
  const SimulateConfig& config = *loaded;
  const std::string& config_path = file.path;
  if (!backend_has(config.backend, &BackendEntry::simulates))  // said, as a gradient without a GPU says where it ran
    std::cerr << "backsweep: simulate runs on the " << default_backend().name << " backend (backend " << config.backend
              << " runs gradients)\n";

  Trajectory trajectory = empty_trajectory(config);
  IntegrateResult result;
  std::optional<StiffnessEstimate> stiffness;  // explicit methods: the probe's, along the run
  visit_model(config, [&](const auto& model) {
    ProgressDisplay display("simulate", config.integrate.t0, config.integrate.t1, false);
    IntegrateOptions options = config.integrate;
    options.progress = display.progress();
    result = simulate_of(model, config, options, trajectory, stiffness);
  });
  if (stiffness && stiffness->unstable() && config.integrate.step > 0.0) {  // a blow-up, finite or not yet
    report_error(io.error, config_path, ": the simulation failed (unstable): ",
                 describe_instability(*stiffness, config.method.name(), config.integrate.step),
                 result.ok() ? "" : "; then: " + result.message);
    return kExitRunFailed;
  }
  if (!result.ok()) {
    std::string message = result.message;  // the component by its name
    const std::string component = "state component " + std::to_string(result.failed_component);
    if (const auto at = message.find(component);
        result.status == IntegrateStatus::non_finite_state && at != std::string::npos &&
        result.failed_component < config.state_names.size())
      message.replace(at, component.size(), "state '" + config.state_names[result.failed_component] + "'");
    report_error(io.error, config_path, ": the simulation failed (", to_string(result.status), "): ", message);
    if (result.status == IntegrateStatus::non_finite_state) {
      io.error.run = {{"phase", "forward"}, {"step", result.failed_step}, {"time", result.failed_time}};
      if (result.failed_component < config.state_names.size())
        io.error.run["state"] = config.state_names[result.failed_component];
    }
    return kExitRunFailed;
  }

  trajectory.events = event_records(config.integrate);  // with those the run found
  note_unreached_events(trajectory.events);
  const GridLayout* fields = config.fields();
  keep_trajectory_arrays(trajectory, io);
  if (io.writes_outputs()) try {
    OutputSet outputs(config.output_dir);
    write_trajectory_files(trajectory, outputs.staging().string(), io.run);
    if (fields && config.vtk) write_state_fields(outputs.staging().string(), config, trajectory);
    commit_outputs(outputs, "simulate", io.run);
  } catch (const std::exception& error) {
    report_error(io.error, error.what());
    return kExitRunFailed;
  }
  if (io.write_outputs)
    std::cerr << "simulate: " << config.model << " with " << config.method.name() << ", "
            << result.steps << " steps (" << result.rejected_steps << " rejected), "
            << result.rhs_evaluations << " RHS evaluations; wrote " << config.output_dir
            << (config.fields() ? "/trajectory.h5" : "/trajectory.{csv,h5}") << (config.fields() && config.vtk ? " and states.pvd" : "") << "\n";
  if (stiffness && stiffness->stiff())
    std::cerr << "warning: stiff: the steps of " << config.method.name() << " were held by its stability (h rho(J) "
              << "at " << stiffness->ratio << " of the limit, as a median over the steps), not by accuracy: an "
              << "implicit method (sdirk4, esdirk3, cvodes_bdf) would take far fewer steps\n";
  if (io.json || io.keep) {  // the whole trajectory as JSON: only when asked for
    nlohmann::json out = simulate_json(trajectory, fields);
    out["stiffness"] = stiffness ? nlohmann::json{{"ratio", stiffness->ratio},
                                                  {"samples", stiffness->samples},
                                                  {"stiff", stiffness->stiff()}}
                                 : nlohmann::json();
    out["events"] = events_json(trajectory.events);
    io.finish(std::move(out));
  }
  return kExitOk;
}

}  // namespace backsweep::apps
