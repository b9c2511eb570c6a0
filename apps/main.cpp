// The backsweep command: one subcommand per task, each reading a TOML config file.
#include <iostream>
#include <string>

#include <CLI/CLI.hpp>

#include "apps/exit_codes.hpp"
#include "apps/fit_command.hpp"
#include "apps/gradient_command.hpp"
#include "apps/lyapunov_command.hpp"
#include "apps/plan_command.hpp"
#include "apps/simulate_command.hpp"

int main(int argc, char** argv) {
  using namespace backsweep::apps;
  CLI::App app{"backsweep: simulations and exact discrete-adjoint gradients of ODEs"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "backsweep " BACKSWEEP_VERSION);

  std::string config;
  bool json = false;
  CLI::App* simulate = app.add_subcommand("simulate", "integrate a model from a config file");
  simulate->add_option("config", config, "TOML config file")->required();
  simulate->add_flag("--json", json, "print one JSON object with the output on stdout");
  simulate->footer(kSimulateHelp);

  CLI::App* gradient = app.add_subcommand("gradient", "objective and gradient from a config file");
  gradient->add_option("config", config, "TOML config file")->required();
  gradient->add_flag("--json", json, "print one JSON object with the results on stdout");
  gradient->footer(kGradientHelp);

  CLI::App* fit = app.add_subcommand("fit", "estimate parameters from measurements");
  fit->add_option("config", config, "TOML config file")->required();
  fit->add_flag("--json", json, "print one JSON object with the results on stdout");
  fit->footer(kFitHelp);

  CLI::App* lyapunov = app.add_subcommand("lyapunov", "leading Lyapunov exponents from a config file");
  lyapunov->add_option("config", config, "TOML config file")->required();
  lyapunov->add_flag("--json", json, "print one JSON object with the results on stdout");
  lyapunov->footer(kLyapunovHelp);

  // plan's counts: digits only, so that "-2" is an error rather than 2^64 - 2.
  const CLI::Validator count(
      [](std::string& text) {
        const bool digits = !text.empty() && text.size() <= 18 &&
                            text.find_first_not_of("0123456789") == std::string::npos;
        return digits ? std::string() : "'" + text + "' is not a whole number from 0 to 10^18 - 1";
      },
      "COUNT");
  PlanRequest request;
  CLI::App* plan = app.add_subcommand("plan", "counts of a checkpoint schedule, per storage level");
  plan->add_option("--steps", request.steps, "number of time steps N")->required()->check(count);
  plan->add_option("--slots", request.slots, "memory slots, the initial state's included")->required()->check(count);
  plan->add_option("--disk-slots", request.disk_slots, "disk slots (two_level)")->check(count);
  plan->add_option("--schedule", request.schedule,
                   "auto (two_level with disk slots, else revolve) | revolve | online | two_level");
  plan->add_option("--state-bytes", request.state_bytes, "bytes of one state, for the volumes (8)")->check(count);
  plan->add_flag("--json", json, "print one JSON object on stdout");

  // A mistyped command is named as such (CLI11 would say a subcommand is required).
  std::string known;
  bool found = false;
  for (const CLI::App* command : app.get_subcommands({})) {
    known += (known.empty() ? "" : ", ") + command->get_name();
    found = found || (argc > 1 && command->get_name() == argv[1]);
  }
  if (argc > 1 && argv[1][0] != '-' && !found) {
    std::cerr << "error: unknown command '" << argv[1] << "' (commands: " << known << ")\n";
    return kExitBadInput;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    const int code = app.exit(error);
    return code == 0 ? kExitOk : kExitBadInput;
  }
  if (*simulate) return run_simulate(config, json);
  if (*gradient) return run_gradient(config, json);
  if (*fit) return run_fit(config, json);
  if (*lyapunov) return run_lyapunov(config, json);
  if (*plan) return run_plan(request, json);
  return kExitBadInput;
}
