#pragma once
// Readers of config sections shared by several commands.
#include "io/config/toml_reader.hpp"
#include "io/config/simulate_spec.hpp"

namespace backsweep::detail {

// Top-level names that no command reads are errors (a typo must not be ignored).
void reject_unknown_sections(const TomlSection& root);

// [model], [parameters], [initial], [time], [solver], [output] of a parsed config.
SimulateSpec read_simulate_sections(const TomlSection& root);

}  // namespace backsweep::detail
