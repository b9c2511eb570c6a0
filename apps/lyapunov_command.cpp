#include "apps/lyapunov_command.hpp"

#include <filesystem>
#include <iostream>

#include <nlohmann/json.hpp>

#include "apps/error_report.hpp"
#include "apps/exit_codes.hpp"
#include "apps/results_stream.hpp"
#include "apps/run_record.hpp"
#include "apps/load_config.hpp"
#include "io/lyapunov_config.hpp"
#include "io/lyapunov_output.hpp"
#include "io/visit_model.hpp"

namespace backsweep::apps {

const char* const kLyapunovHelp = R"(Config keys read by lyapunov, besides [model], [parameters], [initial] (see docs/config.md):
  [time]         start       start time (end and output times are not used)
  [solver]       method, step  a fixed step size is required (cvodes_bdf, cvodes_adams: rtol, atol)
  [lyapunov]     duration    averaging time (required)
                 transient   time skipped first (default duration / 10)
                 exponents   how many leading exponents (default: all)
                 reorthonormalize_every  steps between QR re-orthonormalisations (default 10)
                 interval    CVODES methods: time between QR re-orthonormalisations (default 0.1)
                 blocks      blocks of the averaging time for standard errors (default 20)
Prints the spectrum with standard errors and the Kaplan-Yorke dimension (--json: one JSON
object on stdout) and writes <output.dir>/lyapunov.h5 and lyapunov_history.csv.
Exit codes: 0 ok, 1 the run failed, 2 bad input.)";

int run_lyapunov(const std::string& config_path, bool json) {
  const auto loaded = load_config(load_lyapunov_config, config_path);
  if (!loaded) return kExitBadInput;
  const LyapunovConfig& config = *loaded;
  const SimulateConfig& sim = config.simulate;
  LyapunovResult result;
  visit_model(sim, [&](const auto& model) {
    result = lyapunov_spectrum(model, sim.method, sim.initial_state,
                               sim.parameters, config.options);
  });
  if (!result.ok()) {
    report_error(config_path, ": the run failed (", to_string(result.status), "): ", result.message);
    return kExitRunFailed;
  }
  try {
    OutputSet outputs(sim.output_dir);
    write_lyapunov_files({sim.model, std::string(sim.method.name()), config.options, result},
                         outputs.staging().string());
    commit_outputs(outputs, "lyapunov");
  } catch (const std::exception& error) {
    report_error(error.what());
    return kExitRunFailed;
  }
  results_stream(json) << "Lyapunov exponents of " << sim.model << " (" << result.steps
                       << (sim.method.takes_fixed_step() ? " steps of " : " CVODES steps, QR every ")
                       << config.options.step << ", averaged over " << config.options.duration << "):\n";
  for (std::size_t j = 0; j < result.exponents.size(); ++j)
    results_stream(json) << "  lambda_" << j + 1 << " = " << result.exponents[j] << " +- "
                         << result.standard_errors[j] << '\n';
  results_stream(json) << "  Kaplan-Yorke dimension " << result.kaplan_yorke_dimension << '\n';
  if (json)
    std::cout << nlohmann::json{{"exponents", result.exponents},
                                {"standard_errors", result.standard_errors},
                                {"kaplan_yorke_dimension", result.kaplan_yorke_dimension},
                                {"steps", result.steps}}
                     .dump()
              << '\n';
  return kExitOk;
}

}  // namespace backsweep::apps
