// The backsweep command: one subcommand per task, each reading a TOML config file.
#include <algorithm>
#include <exception>
#include <iostream>
#include <new>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "apps/error_report.hpp"
#include "apps/exit_codes.hpp"
#include "apps/config_commands.hpp"
#include "apps/plan_command.hpp"
#include "apps/rank_output.hpp"
#include "apps/load_config.hpp"
#include "io/config/config_file.hpp"
#include "io/config/config_overrides.hpp"
#include "platform/rank_exchange.hpp"
#include "platform/ranks.hpp"
#include "io/vtk/vti_reader.hpp"

int main(int argc, char** argv) {
  using namespace backsweep::apps;
  const backsweep::ranks::Session ranks(argc, argv);  // the ranks of mpirun, or this process alone
  RankOutput rank_output;
  // This run's: its identity, its error report, where its results go.
  CommandIO io{.write_outputs = backsweep::ranks::is_root()};
  backsweep::install_vti_reader();  // configs may name .vti files for fields
  CLI::App app{"backsweep: simulations, exact discrete-adjoint gradients and parameter fits of ODEs and PDEs on grids"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "backsweep " BACKSWEEP_VERSION);

  std::string config, output_dir;
  std::vector<std::string> overrides;
  bool json = false;
  // What every command that reads a config takes besides the file.
  const auto config_options = [&](CLI::App* command) {
    command->add_option("--set", overrides, "KEY=VALUE: replaces a config key, typed like it (repeatable)")
        ->allow_extra_args(false);
    command->add_option("-o,--output-dir", output_dir, "where the outputs go (replaces [output] dir)");
  };
  std::vector<std::pair<const ConfigCommand*, CLI::App*>> commands;
  for (const ConfigCommand& command : config_commands()) {
    CLI::App* sub = app.add_subcommand(std::string(command.name), command.summary);
    sub->add_option("config", config, "TOML config file")->required();
    sub->add_flag("--json", json, command.json);
    config_options(sub);
    sub->footer(command.help);
    commands.emplace_back(&command, sub);
  }

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
  // Before parsing, so that errors in the command line itself are JSON too.
  const bool wants_json = std::any_of(argv + 1, argv + argc, [](const char* a) { return std::string_view(a) == "--json"; });
  const auto bad_command_line = [&] {
    if (wants_json) std::cout << error_json(io.error, kExitBadInput).dump() << '\n';
    return kExitBadInput;
  };
  if (argc > 1 && argv[1][0] != '-' && !found) {
    report_error(io.error, "unknown command '", argv[1], "' (commands: ", known, ")");
    return bad_command_line();
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    if (error.get_exit_code() == 0) return app.exit(error);  // --help, --version
    report_error(io.error, error.what(), " (see backsweep --help)");
    return bad_command_line();
  }
  // A string whatever it looks like (2024-06-01 would be a TOML date).
  if (!output_dir.empty()) overrides.push_back("output.dir=" + backsweep::toml_string(output_dir));
  io.json = json;
  if (!config.empty()) {
    io.run = backsweep::describe_run(BACKSWEEP_VERSION, config, overrides);
    io.run.ranks = backsweep::ranks::count();
  }

  // The chosen command; whatever it did not handle ends the run with a message, not an abort.
  bool followed = false;  // this rank stopped because another had
  const auto run = [&]() -> int {
    try {
      if (*plan) return run_plan(request, io);
      const auto read = [&](const std::string& path) { return backsweep::read_config_file(path, overrides); };
      auto file = load_config(io.error, read, config);
      if (!file) return kExitBadInput;
      // Ranks other than 0 compute as rank 0 does (or their share of it) and write nothing.
      for (const auto& [command, sub] : commands)
        if (*sub) return command->run(std::move(*file), io);
    } catch (const backsweep::ranks::RanksStopped& stopped) {
      followed = true;  // the rank that stopped says why
      return stopped.code;
    } catch (const std::bad_alloc&) {
      report_error(io.error, kOutOfMemory);
      return kExitRunFailed;
    } catch (const std::exception& error) {
      report_error(io.error, error.what());
      return kExitRunFailed;
    }
    return kExitBadInput;
  };
  const int ran = run();  // before `followed` is read
  const int code = rank_output.end(ran, followed, io.error);
  if (json && code != kExitOk) {
    nlohmann::json error = error_json(io.error, code);
    error["ranks"] = backsweep::ranks::count();
    std::cout << error.dump() << '\n';
  }
  // Results that never reached stdout (a full device, a closed pipe) are a failed run.
  if (std::cout.flush(); !std::cout && code == kExitOk) {
    std::cerr << "error: could not write the results to standard output\n";
    return kExitRunFailed;
  }
  return code;
}
