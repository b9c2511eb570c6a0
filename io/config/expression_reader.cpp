#include "io/config/expression_reader.hpp"

namespace backsweep {

Expression parse_formula(const Formula& formula, const ExpressionScope& scope) {
  try {
    return Expression::parse(formula.text, scope);
  } catch (const ExpressionError& error) {
    SourcePosition where = formula.at;
    where.column += error.column();  // past the opening quote
    throw ConfigError(where, formula.key, error.what());
  }
}

namespace detail {

Formula formula_at(const TomlSection& section, std::string_view key) {
  return {section.string(key, ""), section.position(key), section.key_name(key)};
}

Formula read_formula(const TomlSection& section, std::string_view key, const ExpressionScope& scope) {
  Formula formula = formula_at(section, key);
  parse_formula(formula, scope);
  return formula;
}

Expression read_expression(const TomlSection& section, std::string_view key, const ExpressionScope& scope) {
  return parse_formula(formula_at(section, key), scope);
}

}  // namespace detail

}  // namespace backsweep
