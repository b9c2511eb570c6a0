#include "models/expression.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <iterator>
#include <numbers>
#include <utility>

namespace backsweep {

namespace {

using Code = detail::ExpressionCode;
using Op = detail::ExpressionOp;

const std::pair<const char*, Code> kOneArgument[] = {
    {"exp", Code::exp},   {"log", Code::log},   {"log10", Code::log10}, {"sqrt", Code::sqrt},
    {"sin", Code::sin},   {"cos", Code::cos},   {"tan", Code::tan},     {"tanh", Code::tanh},
    {"abs", Code::abs},   {"atan", Code::atan}, {"asin", Code::asin},   {"acos", Code::acos},
    {"sinh", Code::sinh}, {"cosh", Code::cosh}, {"erf", Code::erf}};
const std::pair<const char*, Code> kTwoArguments[] = {
    {"min", Code::min}, {"max", Code::max}, {"pow", Code::power}, {"atan2", Code::atan2}};
const std::pair<const char*, double> kBuiltinConstants[] = {{"pi", std::numbers::pi},
                                                            {"e", std::numbers::e}};

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
    const Operand result = sum();
    skip_space();
    if (!at_end()) fail(position_, std::string("unexpected '") + text_[position_] + "'");
    // The value goes to output 0: from the instruction that computed it, or copied.
    if (result.kind == Operand::in_register) {
      program_.ops.back().target = detail::kOutputs;
      program_.ops.back().dst = 0;
    } else {
      Op copy{result.kind == Operand::constant ? Code::copy_constant : Code::copy};
      copy.target = detail::kOutputs;
      read_into(copy, result);
      program_.ops.push_back(copy);
    }
    program_.link();
    expression.program_ = std::move(program_);
    for (std::size_t s = 0; s < scope_.segment_count(); ++s)
      expression.segment_sizes_.push_back(scope_.segment_size(s));
    return expression;
  }

 private:
  // What an operator applies to: a constant, a variable where the caller keeps it, or
  // a register holding an intermediate result. Registers are used as a stack.
  struct Operand {
    enum Kind { constant, variable, in_register } kind;
    std::uint8_t source = 0;
    std::uint32_t index = 0;
    double value = 0.0;
  };

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

  // Emitting.
  static Operand constant(double value) { return {Operand::constant, 0, 0, value}; }
  Operand allocate_register() {
    if (registers_in_use_ == detail::kRegisterCount)
      fail(position_, "the expression is nested too deeply");
    return {Operand::in_register, detail::kRegisters, std::uint32_t(registers_in_use_++), 0.0};
  }
  void release(const Operand& operand) {
    if (operand.kind == Operand::in_register) --registers_in_use_;
  }
  static void read_into(Op& op, const Operand& operand) {
    if (operand.kind == Operand::constant) {
      op.value = operand.value;
    } else {
      op.a_source = operand.source;
      op.a = operand.index;
    }
  }
  // Emits dst = op(operands) into a fresh register (the operands' registers are free
  // again, so the result takes the lowest of them).
  Operand emit(Op op, std::initializer_list<Operand> operands) {
    for (auto it = std::rbegin(operands); it != std::rend(operands); ++it) release(*it);
    const Operand result = allocate_register();
    op.dst = result.index;
    program_.ops.push_back(op);
    return result;
  }
  // A constant-only operation is computed now, exactly as evaluation would.
  static double fold(Code code, double a, double b = 0.0) {
    const double values[2] = {a, b};
    const double* segments[] = {values};
    detail::ExpressionProgram program;
    program.segments = 1;
    program.ops.push_back({code, detail::kOutputs, 1, 1, 0, 0, 1, 0.0});
    double result = 0.0;
    program.run(segments, &result);
    return result;
  }
  Operand to_register(const Operand& operand) {
    if (operand.kind != Operand::constant) return operand;
    Op copy{Code::copy_constant};
    copy.value = operand.value;
    return emit(copy, {});
  }

  Operand unary_operation(Code code, const Operand& a) {
    if (a.kind == Operand::constant) return constant(fold(code, a.value));
    Op op{code};
    read_into(op, a);
    return emit(op, {a});
  }
  Operand binary_operation(Code code, Operand a, Operand b) {
    if (a.kind == Operand::constant && b.kind == Operand::constant)
      return constant(fold(code, a.value, b.value));
    // `a op constant` and `constant op a` take the constant as an immediate; + and *
    // commute (bitwise, in IEEE arithmetic).
    const bool commutes = code == Code::add || code == Code::multiply;
    if (a.kind == Operand::constant && commutes) std::swap(a, b);
    if (b.kind == Operand::constant && code <= Code::power) {
      Op op{Code(int(Code::add_constant) + int(code) - int(Code::add))};
      read_into(op, a);
      op.value = b.value;
      return emit(op, {a});
    }
    if (a.kind == Operand::constant && (code == Code::subtract || code == Code::divide)) {
      Op op{code == Code::subtract ? Code::constant_subtract : Code::constant_divide};
      read_into(op, b);
      op.value = a.value;
      return emit(op, {b});
    }
    // min, max, atan2, pow with a constant: the constant goes through a register.
    a = to_register(a);
    b = to_register(b);
    Op op{code};
    op.a_source = a.source;
    op.a = a.index;
    op.b_source = b.source;
    op.b = b.index;
    return emit(op, {a, b});
  }

  // Guards the recursion against pathological nesting ("((((...", "----...").
  struct Nesting {
    ExpressionParser& parser;
    explicit Nesting(ExpressionParser& p) : parser(p) {
      if (++parser.nesting_ > 200) parser.fail(parser.position_, "the expression is nested too deeply");
    }
    ~Nesting() { --parser.nesting_; }
  };

  Operand sum() {
    const Nesting guard(*this);
    Operand left = product();
    for (;;) {
      if (accept('+')) left = binary_operation(Code::add, left, product());
      else if (accept('-')) left = binary_operation(Code::subtract, left, product());
      else return left;
    }
  }
  Operand product() {
    Operand left = unary();
    for (;;) {
      if (accept('*')) left = binary_operation(Code::multiply, left, unary());
      else if (accept('/')) left = binary_operation(Code::divide, left, unary());
      else return left;
    }
  }
  Operand unary() {
    const Nesting guard(*this);
    if (accept('-')) return unary_operation(Code::negate, unary());
    if (accept('+')) return unary();
    return power();
  }
  Operand power() {
    const Operand base = primary();
    if (accept('^')) return binary_operation(Code::power, base, unary());  // 2^-1, 2^3^2
    return base;
  }
  Operand primary() {
    skip_space();
    if (at_end()) fail(position_, "an operand is missing at the end");
    const std::size_t start = position_;
    const char c = text_[position_];
    if (accept('(')) {
      const Operand inside = sum();
      if (!accept(')')) fail(position_, "')' expected");
      return inside;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') return number(start);
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') return name(start);
    fail(start, std::string("unexpected '") + c + "'");
  }
  Operand number(std::size_t start) {
    const char* begin = text_.c_str() + start;
    char* end = nullptr;
    const double value = std::strtod(begin, &end);
    if (end == begin) fail(start, "malformed number");
    position_ = start + std::size_t(end - begin);
    return constant(value);
  }
  Operand name(std::size_t start) {
    while (!at_end() && (std::isalnum(static_cast<unsigned char>(text_[position_])) ||
                         text_[position_] == '_'))
      ++position_;
    const std::string word = text_.substr(start, position_ - start);
    skip_space();
    if (!at_end() && text_[position_] == '(') return call(word, start);
    if (const auto found = scope_.find(word)) {
      if (found->is_constant) return constant(found->value);
      program_.segments = std::max<std::size_t>(program_.segments, found->segment + 1u);
      return {Operand::variable, std::uint8_t(found->segment + 1), found->offset, 0.0};
    }
    for (const auto& [name, value] : kBuiltinConstants)
      if (word == name) return constant(value);
    fail(start, "unknown name '" + word + "' (known: " + scope_.known_names() + ")");
  }
  Operand call(const std::string& function, std::size_t start) {
    accept('(');
    for (const auto& [name, code] : kOneArgument)
      if (function == name) {
        const Operand argument = sum();
        if (!accept(')')) fail(position_, function + "() takes one argument: ')' expected");
        return unary_operation(code, argument);
      }
    for (const auto& [name, code] : kTwoArguments)
      if (function == name) {
        const Operand first = sum();
        if (!accept(',')) fail(position_, function + "() takes two arguments: ',' expected");
        const Operand second = sum();
        if (!accept(')')) fail(position_, "')' expected");
        return binary_operation(code, first, second);
      }
    fail(start, "unknown function '" + function +
                    "' (known: exp log log10 sqrt sin cos tan tanh abs atan asin acos sinh cosh "
                    "erf min max pow atan2)");
  }

  const std::string& text_;
  const ExpressionScope& scope_;
  std::size_t position_ = 0, nesting_ = 0, registers_in_use_ = 0;
  detail::ExpressionProgram program_;
};

Expression Expression::parse(const std::string& text, const ExpressionScope& scope) {
  return ExpressionParser(text, scope).parse();
}

bool Expression::uses(std::size_t segment, std::size_t offset) const {
  const auto source = std::uint8_t(segment + 1);
  return std::any_of(program_.ops.begin(), program_.ops.end(), [&](const Op& op) {
    return (detail::reads_a(op.code) && op.a_source == source && op.a == offset) ||
           (detail::reads_b(op.code) && op.b_source == source && op.b == offset);
  });
}

}  // namespace backsweep
