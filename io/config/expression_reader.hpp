#pragma once
// Expressions inside config files: parse errors point at the column inside the string.
#include <string_view>

#include "io/config/toml_reader.hpp"
#include "models/expression.hpp"

namespace backsweep::detail {

// Parses the string section.key in `scope`. A ConfigError names the file, the line, the
// column inside the string, and the key.
Expression read_expression(const TomlSection& section, std::string_view key,
                           const ExpressionScope& scope);

}  // namespace backsweep::detail
