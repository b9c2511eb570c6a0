#pragma once
// Expressions inside config files: parse errors point at the column inside the string.
#include <string_view>

#include "io/config/formula.hpp"
#include "io/config/toml_reader.hpp"
#include "models/expression.hpp"

namespace backsweep {

// Parses a formula in `scope`. A ConfigError names the file, the line, the column inside
// the string, and the key.
Expression parse_formula(const Formula& formula, const ExpressionScope& scope);

namespace detail {

// The string section.key as a formula, unparsed.
Formula formula_at(const TomlSection& section, std::string_view key);

// The string section.key as a formula, checked by parsing it in `scope` (so that a
// config with a bad expression is refused when read, in the file's order).
Formula read_formula(const TomlSection& section, std::string_view key, const ExpressionScope& scope);

// The string section.key parsed in `scope`: for values the reader evaluates itself.
Expression read_expression(const TomlSection& section, std::string_view key, const ExpressionScope& scope);

}  // namespace detail

}  // namespace backsweep
