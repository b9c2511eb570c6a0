#pragma once
// Command-line overrides of config keys (--set KEY=VALUE, --output-dir), given to
// read_config_file (config_file.hpp): the file read has these keys replaced or added, as
// if it said so. A value is typed like the key it replaces: where the file has a string, the text is
// taken as it is (solver.method=rk4); otherwise it is read as a TOML value (solver.step=0.01,
// time.output=[1, 2]). A config error in an overridden value names the option.
#include <string>
#include <vector>

namespace backsweep {

// `text` as a TOML basic string ("..." with quotes and backslashes escaped): the value of
// an override that must stay a string whatever it looks like.
std::string toml_string(const std::string& text);

}  // namespace backsweep
