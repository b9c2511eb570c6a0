#pragma once
// The commands that run a config file, in one table: the program (apps/main.cpp) makes
// its subcommands from it and the Python module (python/core_module.cpp) runs them by
// name, so a new command is its file plus one row in config_commands.cpp.
#include <span>
#include <string_view>

#include "apps/command_io.hpp"
#include "io/config/config_file.hpp"

namespace backsweep::apps {

struct ConfigCommand {
  std::string_view name;
  const char* summary;  // its line in `backsweep --help`
  const char* json;     // what its --json flag prints
  const char* help;     // its --help footer (help_texts.hpp)
  int (*run)(ConfigFile file, CommandIO& io);
};

std::span<const ConfigCommand> config_commands();
// The command named `name`, or null.
const ConfigCommand* find_config_command(std::string_view name);

}  // namespace backsweep::apps
