#pragma once
// A config file, read and parsed once (with the command line's --set overrides applied,
// io/config/config_overrides.hpp):
// what the loaders of every command read their sections from, so a command that must
// first see which kind of config it has does not read the file twice.
#include <string>
#include <vector>

#include <toml++/toml.h>

namespace backsweep {

struct ConfigFile {
  std::string path;
  toml::table document;
  std::vector<std::string> overrides;  // KEY=VALUE, applied: a config error in one names it
  // A PEtab problem (a .yaml file): `document` holds only the overrides, and the commands
  // read the problem from `path` (apps/petab_commands.hpp).
  bool petab = false;

  // A fit config: [data] and no [objective].
  bool is_fit() const { return document.contains("data") && !document.contains("objective"); }
};

// Throws ConfigError (file, line, key) when the file cannot be read or is not TOML, or
// an override is not KEY=VALUE.
ConfigFile read_config_file(const std::string& path, std::vector<std::string> overrides = {});

// A config given as text (the Python module's TOML strings and dicts), named `name` in
// errors; relative paths in it are taken from the working folder.
ConfigFile config_from_text(const std::string& text, const std::string& name, std::vector<std::string> overrides = {});

}  // namespace backsweep
