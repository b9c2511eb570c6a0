#pragma once
// Command-line overrides of config keys (--set KEY=VALUE, --output-dir): every config file
// read after set_config_overrides() has these keys replaced or added, as if the file said
// so. A value is typed like the key it replaces: where the file has a string, the text is
// taken as it is (solver.method=rk4); otherwise it is read as a TOML value (solver.step=0.01,
// time.output=[1, 2]). A config error in an overridden value names the option.
#include <string>
#include <vector>

namespace backsweep {

void set_config_overrides(std::vector<std::string> assignments);

// `text` as a TOML basic string ("..." with quotes and backslashes escaped): the value of
// an override that must stay a string whatever it looks like.
std::string toml_string(const std::string& text);

}  // namespace backsweep
