#include "apps/lyapunov_command.hpp"

#include <filesystem>
#include <iostream>

#include <nlohmann/json.hpp>

#include "apps/error_report.hpp"
#include "apps/exit_codes.hpp"
#include "apps/command_io.hpp"
#include "apps/engine_of.hpp"
#include "apps/run_record.hpp"
#include "apps/load_config.hpp"
#include "io/assembly/lyapunov_config.hpp"
#include "io/outputs/lyapunov_output.hpp"
#include "io/assembly/visit_model.hpp"

namespace backsweep::apps {

int run_lyapunov(ConfigFile file, CommandIO& io) {
  const std::string path = file.path;
  auto loaded = load_config(io.error, lyapunov_config, std::move(file));
  if (!loaded) return kExitBadInput;
  io.use_given_fields(loaded->simulate);
  const LyapunovConfig& config = *loaded;
  const SimulateConfig& sim = config.simulate;
  LyapunovResult result;
  visit_model(sim, [&](const auto& model) {
    result = lyapunov_of(model, sim, config.options);
  });
  if (!result.ok()) {
    report_error(io.error, path, ": the run failed (", to_string(result.status), "): ", result.message);
    return kExitRunFailed;
  }
  if (io.writes_outputs()) try {
    OutputSet outputs(sim.output_dir);
    write_lyapunov_files({sim.model, std::string(sim.method.name()), config.options, result},
                         outputs.staging().string(), io.run);
    commit_outputs(outputs, "lyapunov", io.run);
  } catch (const std::exception& error) {
    report_error(io.error, error.what());
    return kExitRunFailed;
  }
  io.text() << "Lyapunov exponents of " << sim.model << " (" << result.steps
                       << (sim.method.takes_fixed_step() ? " steps of " : " CVODES steps, QR every ")
                       << config.options.step << ", averaged over " << config.options.duration << "):\n";
  for (std::size_t j = 0; j < result.exponents.size(); ++j)
    io.text() << "  lambda_" << j + 1 << " = " << result.exponents[j] << " +- "
                         << result.standard_errors[j] << '\n';
  io.text() << "  Kaplan-Yorke dimension " << result.kaplan_yorke_dimension << '\n';
  io.finish({{"exponents", result.exponents},
             {"standard_errors", result.standard_errors},
             {"kaplan_yorke_dimension", result.kaplan_yorke_dimension},
             {"steps", result.steps}});
  return kExitOk;
}

}  // namespace backsweep::apps
