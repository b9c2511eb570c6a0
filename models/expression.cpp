#include "models/expression.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <numbers>
#include <utility>

namespace backsweep {

namespace {

using Code = detail::ExpressionCode;
using Op = detail::ExpressionOp;

const std::pair<const char*, Code> kOneArgument[] = {
    {"exp", Code::exp}, {"log", Code::log}, {"log10", Code::log10}, {"sqrt", Code::sqrt},
    {"sin", Code::sin}, {"cos", Code::cos}, {"tan", Code::tan},     {"tanh", Code::tanh},
    {"abs", Code::abs}};
const std::pair<const char*, Code> kTwoArguments[] = {
    {"min", Code::min}, {"max", Code::max}, {"pow", Code::power}};
const std::pair<const char*, double> kBuiltinConstants[] = {{"pi", std::numbers::pi},
                                                            {"e", std::numbers::e}};

// The single-instruction form of `top op constant` / `top op variable`, if there is one.
std::optional<Code> with_constant_operand(Code code) {
  switch (code) {
    case Code::add: return Code::add_constant;
    case Code::subtract: return Code::subtract_constant;
    case Code::multiply: return Code::multiply_constant;
    case Code::divide: return Code::divide_constant;
    case Code::power: return Code::power_constant;
    default: return std::nullopt;
  }
}
std::optional<Code> with_variable_operand(Code code) {
  switch (code) {
    case Code::add: return Code::add_variable;
    case Code::subtract: return Code::subtract_variable;
    case Code::multiply: return Code::multiply_variable;
    case Code::divide: return Code::divide_variable;
    default: return std::nullopt;
  }
}

// The value of a constant-only program fragment, computed as evaluation would.
double fold(std::vector<Op> fragment) {
  fragment.push_back({Code::store});
  double value = 0;
  detail::run_expression_program<double>(fragment.data(), fragment.size(), nullptr, &value);
  return value;
}

}  // namespace

bool is_reserved_expression_name(std::string_view name) {
  for (const auto& [function, code] : kOneArgument)
    if (name == function) return true;
  for (const auto& [function, code] : kTwoArguments)
    if (name == function) return true;
  for (const auto& [constant, value] : kBuiltinConstants)
    if (name == constant) return true;
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
  if (names_.count(std::string(name))) return quoted + " is declared twice";
  return std::nullopt;
}

void ExpressionScope::declare(const std::string& name, Name meaning) {
  if (auto problem = problem_with(name)) throw std::invalid_argument(*problem);
  names_.emplace(name, meaning);
  order_.push_back(name);
}

void ExpressionScope::add_segment(const std::vector<std::string>& names) {
  if (segment_sizes_.size() > 255) throw std::invalid_argument("too many expression segments");
  const auto segment = std::uint8_t(segment_sizes_.size());
  segment_sizes_.push_back(names.size());
  for (std::size_t i = 0; i < names.size(); ++i)
    declare(names[i], {false, segment, std::uint32_t(i), 0.0});
}

void ExpressionScope::add_constant(const std::string& name, double value) {
  declare(name, {true, 0, 0, value});
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

class ExpressionParser {
 public:
  ExpressionParser(const std::string& text, const ExpressionScope& scope)
      : text_(text), scope_(scope) {}

  Expression parse() {
    Expression expression;
    expression.text_ = text_;
    skip_space();
    if (at_end()) fail(0, "the expression is empty");
    sum();
    skip_space();
    if (!at_end()) fail(position_, std::string("unexpected '") + text_[position_] + "'");
    program_.push_back({Code::store});
    expression.program_ = std::move(program_);
    return expression;
  }

 private:
  [[noreturn]] void fail(std::size_t at, const std::string& message) const {
    throw ExpressionError(at + 1, message);
  }
  bool at_end() const { return position_ >= text_.size(); }
  void skip_space() {
    while (!at_end() && std::isspace(static_cast<unsigned char>(text_[position_]))) ++position_;
  }
  bool accept(char c) {
    skip_space();
    if (!at_end() && text_[position_] == c) {
      ++position_;
      return true;
    }
    return false;
  }

  // Emitting. The stack depth is tracked as written (before the rewrites below, which
  // only lower it) to refuse what evaluation cannot hold.
  void push(Op op) {
    if (++depth_ > Expression::kMaxStack) fail(position_, "the expression is nested too deeply");
    program_.push_back(op);
  }
  void push_constant(double value) { push({Code::constant, 0, 0, value}); }
  bool last_is(Code code, std::size_t back = 1) const {
    return program_.size() >= back && program_[program_.size() - back].code == code;
  }
  void apply_unary(Code code) {
    if (last_is(Code::constant)) {
      program_.back().value = fold({program_.back(), {code}});
      return;
    }
    program_.push_back({code});
  }
  void apply_binary(Code code) {
    --depth_;
    if (last_is(Code::constant) && last_is(Code::constant, 2)) {
      const Op right = program_.back();
      program_.pop_back();
      program_.back().value = fold({program_.back(), right, {code}});
    } else if (auto fused = with_constant_operand(code); fused && last_is(Code::constant)) {
      program_.back().code = *fused;
    } else if (auto fused = with_variable_operand(code); fused && last_is(Code::variable)) {
      program_.back().code = *fused;
    } else {
      program_.push_back({code});
    }
  }

  // Guards the recursion against pathological nesting ("((((...", "----...").
  struct Nesting {
    ExpressionParser& parser;
    explicit Nesting(ExpressionParser& p) : parser(p) {
      if (++parser.nesting_ > 200) parser.fail(parser.position_, "the expression is nested too deeply");
    }
    ~Nesting() { --parser.nesting_; }
  };

  void sum() {
    const Nesting guard(*this);
    product();
    for (;;) {
      if (accept('+')) product(), apply_binary(Code::add);
      else if (accept('-')) product(), apply_binary(Code::subtract);
      else return;
    }
  }
  void product() {
    unary();
    for (;;) {
      if (accept('*')) unary(), apply_binary(Code::multiply);
      else if (accept('/')) unary(), apply_binary(Code::divide);
      else return;
    }
  }
  void unary() {
    const Nesting guard(*this);
    if (accept('-')) {
      unary();
      apply_unary(Code::negate);
    } else if (accept('+')) {
      unary();
    } else {
      power();
    }
  }
  void power() {
    primary();
    if (accept('^')) {
      unary();  // right-associative, and 2^-1 is allowed
      apply_binary(Code::power);
    }
  }
  void primary() {
    skip_space();
    if (at_end()) fail(position_, "an operand is missing at the end");
    const std::size_t start = position_;
    const char c = text_[position_];
    if (accept('(')) {
      sum();
      if (!accept(')')) fail(position_, "')' expected");
      return;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') return number(start);
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') return name(start);
    fail(start, std::string("unexpected '") + c + "'");
  }
  void number(std::size_t start) {
    const char* begin = text_.c_str() + start;
    char* end = nullptr;
    const double value = std::strtod(begin, &end);
    if (end == begin) fail(start, "malformed number");
    position_ = start + std::size_t(end - begin);
    push_constant(value);
  }
  void name(std::size_t start) {
    while (!at_end() && (std::isalnum(static_cast<unsigned char>(text_[position_])) ||
                         text_[position_] == '_'))
      ++position_;
    const std::string word = text_.substr(start, position_ - start);
    skip_space();
    if (!at_end() && text_[position_] == '(') return call(word, start);
    if (const auto found = scope_.find(word)) {
      if (found->is_constant) return push_constant(found->value);
      return push({Code::variable, found->segment, found->offset, 0.0});
    }
    for (const auto& [constant, value] : kBuiltinConstants)
      if (word == constant) return push_constant(value);
    fail(start, "unknown name '" + word + "' (known: " + scope_.known_names() + ")");
  }
  void call(const std::string& function, std::size_t start) {
    accept('(');
    for (const auto& [name, code] : kOneArgument)
      if (function == name) {
        sum();
        if (!accept(')')) fail(position_, function + "() takes one argument: ')' expected");
        return apply_unary(code);
      }
    for (const auto& [name, code] : kTwoArguments)
      if (function == name) {
        sum();
        if (!accept(',')) fail(position_, function + "() takes two arguments: ',' expected");
        sum();
        if (!accept(')')) fail(position_, "')' expected");
        return apply_binary(code);
      }
    fail(start, "unknown function '" + function +
                    "' (known: exp log log10 sqrt sin cos tan tanh abs min max pow)");
  }

  const std::string& text_;
  const ExpressionScope& scope_;
  std::size_t position_ = 0, depth_ = 0, nesting_ = 0;
  std::vector<Op> program_;
};

Expression Expression::parse(const std::string& text, const ExpressionScope& scope) {
  return ExpressionParser(text, scope).parse();
}

bool Expression::uses(std::size_t segment, std::size_t offset) const {
  return std::any_of(program_.begin(), program_.end(), [&](const Op& op) {
    const bool reads = op.code == Code::variable || op.code == Code::add_variable ||
                       op.code == Code::subtract_variable || op.code == Code::multiply_variable ||
                       op.code == Code::divide_variable;
    return reads && op.segment == segment && op.index == offset;
  });
}

}  // namespace backsweep
