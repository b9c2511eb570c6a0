// The backsweep command: one subcommand per task, each reading a TOML config file.
#include <iostream>
#include <string>

#include <CLI/CLI.hpp>

#include "apps/exit_codes.hpp"
#include "apps/simulate_command.hpp"

int main(int argc, char** argv) {
  using namespace backsweep::apps;
  CLI::App app{"backsweep: simulations and exact discrete-adjoint gradients of ODEs"};
  app.require_subcommand(1);

  std::string config;
  bool json = false;
  CLI::App* simulate = app.add_subcommand("simulate", "integrate a model from a config file");
  simulate->add_option("config", config, "TOML config file")->required();
  simulate->add_flag("--json", json, "print one JSON object with the output on stdout");
  simulate->footer(kSimulateHelp);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    const int code = app.exit(error);
    return code == 0 ? kExitOk : kExitBadInput;
  }
  if (*simulate) return run_simulate(config, json);
  return kExitBadInput;
}
