#include "models/expression.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>

#include "models/expression_names.hpp"
#include "models/program_emitter.hpp"

namespace backsweep {

namespace {

using detail::kBuiltinConstants, detail::kOneArgument, detail::kTwoArguments;
using Code = detail::ExpressionCode;
using Operand = detail::ProgramEmitter::Operand;

// A character of the text as a message may show it: a control byte (a NUL would end the
// message where it is read as a C string) as \xNN.
std::string shown(char c) {
  const auto byte = static_cast<unsigned char>(c);
  if (byte >= 0x20 && byte != 0x7F) return std::string(1, c);
  const char digits[] = "0123456789ABCDEF";
  return std::string("\\x") + digits[byte >> 4] + digits[byte & 15];
}

}  // namespace

// Reads the text by recursive descent, one precedence level a function, handing each
// operation to the emitter as it is read.
class ExpressionParser {
 public:
  ExpressionParser(const std::string& text, const ExpressionScope& scope)
      : text_(text), scope_(scope) {}

  Expression parse() {
    Expression expression;
    expression.text_ = text_;
    skip_space();
    if (at_end()) fail(0, "the expression is empty");
    try {
      const Operand result = logical();
      skip_space();
      if (!at_end()) fail(position_, "unexpected '" + shown(text_[position_]) + "'" + hint());
      expression.program_ = emitter_.finish(result);
    } catch (const detail::ProgramEmitter::RegistersExhausted&) {
      fail(position_, "the expression is nested too deeply");
    }
    for (std::size_t s = 0; s < scope_.segment_count(); ++s)
      expression.segment_sizes_.push_back(scope_.segment_size(s));
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
    while (accept_word("or")) left = emitter_.binary(Code::logical_or, left, conjunction());
    return left;
  }
  Operand conjunction() {
    Operand left = comparison();
    while (accept_word("and")) left = emitter_.binary(Code::logical_and, left, comparison());
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
      return swapped ? emitter_.binary(code, right, left) : emitter_.binary(code, left, right);
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
      if (accept('+')) left = emitter_.binary(Code::add, left, product());
      else if (accept('-')) left = emitter_.binary(Code::subtract, left, product());
      else return left;
    }
  }
  Operand product() {
    Operand left = unary();
    for (;;) {
      if (accept('*')) left = emitter_.binary(Code::multiply, left, unary());
      else if (accept('/')) left = emitter_.binary(Code::divide, left, unary());
      else return left;
    }
  }
  Operand unary() {
    const Nesting guard(*this);
    if (accept('-')) return emitter_.unary(Code::negate, unary());
    if (accept('+')) return unary();
    return power();
  }
  Operand power() {
    const Operand base = primary();
    if (accept('^')) return emitter_.binary(Code::power, base, unary());  // 2^-1, 2^3^2
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
    return detail::ProgramEmitter::constant(value);
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
      if (found->is_constant) return detail::ProgramEmitter::constant(found->value);
      return emitter_.variable(found->segment, found->offset);
    }
    for (const auto& [name, value] : kBuiltinConstants)
      if (word == name) return detail::ProgramEmitter::constant(value);
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
    return emitter_.variable(field.segment, std::uint32_t(field.offset + flat));
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
    const Operand total = emitter_.sum_range(field->segment, field->offset, count);
    if (function == "sum") return total;
    return emitter_.binary(Code::divide, total, detail::ProgramEmitter::constant(double(count)));
  }
  Operand call(const std::string& function, std::size_t start) {
    accept('(');
    if (function == "sum" || function == "mean") return reduction(function, start);
    if (scope_.is_operator(function)) {
      const std::vector<std::string> arguments = name_arguments(function);
      try {
        const ExpressionScope::Name found = scope_.resolve_operator(function, arguments);
        return emitter_.variable(found.segment, found.offset);
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
      return emitter_.select(condition, when_true, when_false);
    }
    for (const auto& [name, code] : kOneArgument)
      if (function == name) {
        const Operand argument = logical();
        if (!accept(')')) fail(position_, function + "() takes one argument: ')' expected");
        return emitter_.unary(code, argument);
      }
    for (const auto& [name, code] : kTwoArguments)
      if (function == name) {
        const Operand first = logical();
        if (!accept(',')) fail(position_, function + "() takes two arguments: ',' expected");
        const Operand second = logical();
        if (!accept(')')) fail(position_, "')' expected");
        return emitter_.binary(code, first, second);
      }
    fail(start, "unknown function '" + function +
                    "' (known: exp log log10 sqrt sin cos tan tanh abs atan asin acos sinh cosh "
                    "erf min max pow atan2 if" + std::string(scope_.has_fields() ? " sum mean" : "") + ")");
  }

  const std::string& text_;
  const ExpressionScope& scope_;
  std::size_t position_ = 0, nesting_ = 0;
  detail::ProgramEmitter emitter_;
};

Expression Expression::parse(const std::string& text, const ExpressionScope& scope) {
  return ExpressionParser(text, scope).parse();
}

bool Expression::uses(std::size_t segment, std::size_t offset) const {
  const auto source = std::uint8_t(segment + 1);
  return std::any_of(program_.ops.begin(), program_.ops.end(), [&](const detail::ExpressionOp& op) {
    if (op.code == Code::sum_range)
      return op.a_source == source && offset >= op.a && offset < op.a + std::size_t(op.value);
    return (detail::reads_a(op.code) && op.a_source == source && op.a == offset) ||
           (detail::reads_b(op.code) && op.b_source == source && op.b == offset) ||
           (detail::reads_c(op.code) && op.c_source == source && op.c == offset);
  });
}

}  // namespace backsweep
