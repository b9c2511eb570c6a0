// The names an expression may use (ExpressionScope), and the names it may not.
#include <algorithm>
#include <cctype>
#include <stdexcept>

#include "models/expression_names.hpp"
#include "models/expression.hpp"

namespace backsweep {

using detail::kBuiltinConstants, detail::kKeywords, detail::kOneArgument, detail::kTwoArguments;

bool is_reserved_expression_name(std::string_view name) {
  for (const auto& [function, code] : kOneArgument)
    if (name == function) return true;
  for (const auto& [function, code] : kTwoArguments)
    if (name == function) return true;
  for (const auto& [constant, value] : kBuiltinConstants)
    if (name == constant) return true;
  for (const char* keyword : kKeywords)
    if (name == keyword) return true;
  return false;
}

bool is_expression_identifier(std::string_view name) {
  if (name.empty() || !(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_'))
    return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

std::optional<std::string> ExpressionScope::problem_with(std::string_view name) const {
  std::string quoted = "'";  // built by append: GCC 12 misreports "'" + string (-Wrestrict)
  quoted.append(name).append("'");
  if (!is_expression_identifier(name))
    return quoted + " is not a name (a letter or '_', then letters, digits or '_')";
  if (is_reserved_expression_name(name))
    return quoted + " is the name of a built-in function or constant";
  if (names_.count(std::string(name)) || fields_.count(std::string(name)))
    return quoted + " is declared twice";
  return std::nullopt;
}

void ExpressionScope::declare(const std::string& name, Name meaning) {
  if (auto problem = problem_with(name)) throw std::invalid_argument(*problem);
  names_.emplace(name, meaning);
  order_.push_back(name);
}

void ExpressionScope::add_segment(const std::vector<std::string>& names) {
  if (segment_sizes_.size() >= detail::kMaxSegments)
    throw std::invalid_argument("an expression scope holds at most 7 segments");
  const auto segment = std::uint8_t(segment_sizes_.size());
  segment_sizes_.push_back(names.size());
  for (std::size_t i = 0; i < names.size(); ++i)
    declare(names[i], {false, segment, std::uint32_t(i), 0.0});
}

void ExpressionScope::add_constant(const std::string& name, double value) {
  declare(name, {true, 0, 0, value});
}

void ExpressionScope::add_field(const std::string& name, const Field& field) {
  if (auto problem = problem_with(name)) throw std::invalid_argument(*problem);
  if (field.segment >= segment_sizes_.size()) throw std::invalid_argument("a field's segment must be added first");
  std::size_t count = 1;
  for (std::size_t size : field.shape) count *= size;
  segment_sizes_[field.segment] = std::max(segment_sizes_[field.segment], field.offset + count);
  fields_.emplace(name, field);
  order_.push_back(name);
}

const ExpressionScope::Field* ExpressionScope::find_field(std::string_view name) const {
  const auto it = fields_.find(std::string(name));
  return it == fields_.end() ? nullptr : &it->second;
}

void ExpressionScope::set_operators(std::vector<std::string> names, OperatorResolver resolve) {
  operators_ = std::move(names);
  resolve_ = std::move(resolve);
}

bool ExpressionScope::is_operator(std::string_view name) const {
  return std::find(operators_.begin(), operators_.end(), name) != operators_.end();
}

std::optional<ExpressionScope::Name> ExpressionScope::find(std::string_view name) const {
  const auto it = names_.find(std::string(name));
  if (it == names_.end()) return std::nullopt;
  return it->second;
}

std::string ExpressionScope::known_names() const {
  std::string known;
  for (const std::string& name : order_) known += name + ", ";
  return known + "pi, e";
}

}  // namespace backsweep
