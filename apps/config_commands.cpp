#include "apps/config_commands.hpp"

#include <algorithm>
#include <array>
#include <utility>

#include "apps/fit_command.hpp"
#include "apps/gradient_command.hpp"
#include "apps/help_texts.hpp"
#include "apps/lyapunov_command.hpp"
#include "apps/simulate_command.hpp"

namespace backsweep::apps {

std::span<const ConfigCommand> config_commands() {
  // In a function: the help texts are other files' constants.
  static const std::array<ConfigCommand, 4> commands{{
      {"simulate", "integrate a model from a config file", "print one JSON object with the output on stdout",
       kSimulateHelp, [](ConfigFile file, CommandIO& io) { return run_simulate(file, io); }},
      {"gradient", "objective and gradient from a config file", "print one JSON object with the results on stdout",
       kGradientHelp, [](ConfigFile file, CommandIO& io) { return run_gradient(file, io); }},
      {"fit", "estimate parameters from measurements", "print one JSON object with the results on stdout", kFitHelp,
       [](ConfigFile file, CommandIO& io) { return run_fit(file, io); }},
      {"lyapunov", "leading Lyapunov exponents from a config file", "print one JSON object with the results on stdout",
       kLyapunovHelp, [](ConfigFile file, CommandIO& io) { return run_lyapunov(std::move(file), io); }},
  }};
  return commands;
}

const ConfigCommand* find_config_command(std::string_view name) {
  const auto commands = config_commands();
  const auto found = std::find_if(commands.begin(), commands.end(), [&](const auto& c) { return c.name == name; });
  return found == commands.end() ? nullptr : &*found;
}

}  // namespace backsweep::apps
