#include "io/config/expression_reader.hpp"

#include <string>

namespace backsweep::detail {

Expression read_expression(const TomlSection& section, std::string_view key,
                           const ExpressionScope& scope) {
  const std::string text = section.string(key, "");
  try {
    return Expression::parse(text, scope);
  } catch (const ExpressionError& error) {
    SourcePosition where = section.position(key);
    where.column += error.column();  // past the opening quote
    throw ConfigError(where, section.key_name(key), error.what());
  }
}

}  // namespace backsweep::detail
