#include "models/expression.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <iterator>
#include <numbers>
#include <utility>

namespace backsweep {

namespace {

// A character of the text as a message may show it: a control byte (a NUL would end the
// message where it is read as a C string) as \xNN.
std::string shown(char c) {
  const auto byte = static_cast<unsigned char>(c);
  if (byte >= 0x20 && byte != 0x7F) return std::string(1, c);
  const char digits[] = "0123456789ABCDEF";
  return std::string("\\x") + digits[byte >> 4] + digits[byte & 15];
}

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
const char* const kKeywords[] = {"if", "and", "or", "sum", "mean"};

}  // namespace

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

class ExpressionParser {
 public:
  ExpressionParser(const std::string& text, const ExpressionScope& scope)
      : text_(text), scope_(scope) {}

  Expression parse() {
    Expression expression;
    expression.text_ = text_;
    skip_space();
    if (at_end()) fail(0, "the expression is empty");
    const Operand result = logical();
    skip_space();
    if (!at_end()) fail(position_, "unexpected '" + shown(text_[position_]) + "'" + hint());
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

  // A keyword operator ("and", "or") where the text has it as a whole word.
  bool accept_word(std::string_view word) {
    skip_space();
    if (text_.compare(position_, word.size(), word) != 0) return false;
    const std::size_t after = position_ + word.size();
    if (after < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[after])) || text_[after] == '_'))
      return false;
    position_ = after;
    return true;
  }
  Operand logical() {
    const Nesting guard(*this);
    Operand left = conjunction();
    while (accept_word("or")) left = binary_operation(Code::logical_or, left, conjunction());
    return left;
  }
  Operand conjunction() {
    Operand left = comparison();
    while (accept_word("and")) left = binary_operation(Code::logical_and, left, comparison());
    return left;
  }
  // At most one comparison: "a < b < c" is refused rather than read as (a < b) < c.
  Operand comparison() {
    const Operand left = sum();
    skip_space();
    const std::string_view rest = std::string_view(text_).substr(position_);
    const auto compare = [&](std::size_t length, Code code, bool swapped) {
      position_ += length;
      const Operand right = sum();
      skip_space();
      if (!at_end() && std::string_view("<>=!").find(text_[position_]) != std::string_view::npos)
        fail(position_, "comparisons do not chain: write (a < b) and (b < c)");
      return swapped ? binary_operation(code, right, left) : binary_operation(code, left, right);
    };
    if (rest.starts_with("<=")) return compare(2, Code::less_equal, false);
    if (rest.starts_with(">=")) return compare(2, Code::less_equal, true);
    if (rest.starts_with("==")) return compare(2, Code::equal, false);
    if (rest.starts_with("!=")) return compare(2, Code::not_equal, false);
    if (rest.starts_with("<")) return compare(1, Code::less, false);
    if (rest.starts_with(">")) return compare(1, Code::less, true);
    return left;
  }
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
      const Operand inside = logical();
      if (!accept(')')) fail(position_, "')' expected");
      return inside;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') return number(start);
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') return name(start);
    fail(start, "unexpected '" + shown(c) + "'" + hint());
  }
  // What a user from another language may have meant.
  std::string hint() const {
    if (text_.compare(position_ > 0 ? position_ - 1 : 0, 2, "**") == 0) return " (powers are written x^2)";
    return "";
  }
  Operand number(std::size_t start) {
    const char* begin = text_.c_str() + start;
    char* end = nullptr;
    const double value = std::strtod(begin, &end);
    if (end == begin) fail(start, "malformed number");
    if (!std::isfinite(value))
      fail(start, "the number " + std::string(begin, std::size_t(end - begin)) + " is out of double range");
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
    if (const ExpressionScope::Field* field = scope_.find_field(word)) {
      if (!accept('['))
        fail(start, "'" + word + "' is a field: give grid indices (" + word + "[" + index_example(*field) +
                        "]) or reduce it (sum(" + word + "), mean(" + word + "))");
      return element(word, *field);
    }
    if (const auto found = scope_.find(word)) {
      if (found->is_constant) return constant(found->value);
      program_.segments = std::max<std::size_t>(program_.segments, found->segment + 1u);
      return {Operand::variable, std::uint8_t(found->segment + 1), found->offset, 0.0};
    }
    for (const auto& [name, value] : kBuiltinConstants)
      if (word == name) return constant(value);
    fail(start, "unknown name '" + word + "' (known: " + scope_.known_names() + ")");
  }
  static std::string index_example(const ExpressionScope::Field& field) {
    std::string text;
    for (std::size_t a = 0; a < field.shape.size(); ++a) text += a ? ", 0" : "0";
    return text;
  }
  // field[i, j, ...] after the '[': one whole number per axis, each inside the grid.
  Operand element(const std::string& name, const ExpressionScope::Field& field) {
    std::size_t flat = 0;
    for (std::size_t a = 0; a < field.shape.size(); ++a) {
      if (a > 0 && !accept(','))
        fail(position_, "'" + name + "' has " + std::to_string(field.shape.size()) + " indices: ',' expected");
      skip_space();
      const std::size_t at = position_;
      std::size_t index = 0, digits = 0;
      for (; !at_end() && std::isdigit(static_cast<unsigned char>(text_[position_])); ++position_, ++digits)
        index = std::min<std::size_t>(index * 10 + std::size_t(text_[position_] - '0'), std::size_t(1) << 40);
      if (digits == 0) fail(at, "a grid index is a whole number from 0");
      // As written: a saturated index would read as another number.
      const std::string written = digits <= 20 ? text_.substr(at, digits) : "of " + std::to_string(digits) + " digits";
      if (index >= field.shape[a])
        fail(at, "index " + written + " is outside the grid (axis " + std::to_string(a) + " has " +
                     std::to_string(field.shape[a]) + " points, from 0)");
      flat = flat * field.shape[a] + index;
    }
    if (!accept(']'))
      fail(position_, "'" + name + "' has " + std::to_string(field.shape.size()) + " indices: ']' expected");
    program_.segments = std::max<std::size_t>(program_.segments, field.segment + 1u);
    return {Operand::variable, std::uint8_t(field.segment + 1), std::uint32_t(field.offset + flat), 0.0};
  }
  // Names as arguments, for reductions and operators: "(u)", "(k, u)".
  std::vector<std::string> name_arguments(const std::string& function) {
    std::vector<std::string> names;
    do {
      skip_space();
      const std::size_t at = position_;
      while (!at_end() && (std::isalnum(static_cast<unsigned char>(text_[position_])) || text_[position_] == '_'))
        ++position_;
      if (at == position_ || !is_expression_identifier(text_.substr(at, position_ - at)))
        fail(at, function + "() takes names of fields as arguments");
      names.push_back(text_.substr(at, position_ - at));
    } while (accept(','));
    if (!accept(')')) fail(position_, function + "() takes names of fields as arguments: ')' expected");
    return names;
  }
  // sum(u), mean(u): every value of a field.
  Operand reduction(const std::string& function, std::size_t start) {
    const std::vector<std::string> names = name_arguments(function);
    const ExpressionScope::Field* field = names.size() == 1 ? scope_.find_field(names[0]) : nullptr;
    if (!field) fail(start, function + "() takes one field (" + function + "(u))");
    std::size_t count = 1;
    for (std::size_t size : field->shape) count *= size;
    program_.segments = std::max<std::size_t>(program_.segments, field->segment + 1u);
    Op op{Code::sum_range};
    op.a_source = std::uint8_t(field->segment + 1);
    op.a = field->offset;
    op.value = double(count);
    const Operand total = emit(op, {});
    return function == "mean" ? binary_operation(Code::divide, total, constant(double(count))) : total;
  }
  Operand call(const std::string& function, std::size_t start) {
    accept('(');
    if (function == "sum" || function == "mean") return reduction(function, start);
    if (scope_.is_operator(function)) {
      const std::vector<std::string> arguments = name_arguments(function);
      try {
        const ExpressionScope::Name found = scope_.resolve_operator(function, arguments);
        program_.segments = std::max<std::size_t>(program_.segments, found.segment + 1u);
        return {Operand::variable, std::uint8_t(found.segment + 1), found.offset, 0.0};
      } catch (const std::invalid_argument& refused) {
        fail(start, refused.what());
      }
    }
    if (function == "if") {
      const Operand condition = logical();
      if (!accept(',')) fail(position_, "if() takes three arguments: ',' expected");
      const Operand when_true = logical();
      if (!accept(',')) fail(position_, "if() takes three arguments: ',' expected");
      const Operand when_false = logical();
      if (!accept(')')) fail(position_, "if() takes three arguments: ')' expected");
      if (condition.kind == Operand::constant) return condition.value != 0 ? when_true : when_false;
      const Operand a = to_register(when_true), b = to_register(when_false);
      Op op{Code::select};
      op.a_source = a.source;
      op.a = a.index;
      op.b_source = b.source;
      op.b = b.index;
      op.c_source = condition.source;
      op.c = condition.index;
      return emit(op, {condition, a, b});
    }
    for (const auto& [name, code] : kOneArgument)
      if (function == name) {
        const Operand argument = logical();
        if (!accept(')')) fail(position_, function + "() takes one argument: ')' expected");
        return unary_operation(code, argument);
      }
    for (const auto& [name, code] : kTwoArguments)
      if (function == name) {
        const Operand first = logical();
        if (!accept(',')) fail(position_, function + "() takes two arguments: ',' expected");
        const Operand second = logical();
        if (!accept(')')) fail(position_, "')' expected");
        return binary_operation(code, first, second);
      }
    fail(start, "unknown function '" + function +
                    "' (known: exp log log10 sqrt sin cos tan tanh abs atan asin acos sinh cosh "
                    "erf min max pow atan2 if" + std::string(scope_.has_fields() ? " sum mean" : "") + ")");
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
    if (op.code == Code::sum_range)
      return op.a_source == source && offset >= op.a && offset < op.a + std::size_t(op.value);
    return (detail::reads_a(op.code) && op.a_source == source && op.a == offset) ||
           (detail::reads_b(op.code) && op.b_source == source && op.b == offset) ||
           (detail::reads_c(op.code) && op.c_source == source && op.c == offset);
  });
}

}  // namespace backsweep
