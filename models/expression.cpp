#include "models/expression.hpp"

#include <cctype>
#include <cstdlib>
#include <numbers>
#include <utility>

namespace backsweep {

class ExpressionParser {
 public:
  ExpressionParser(const std::string& text, const std::vector<std::string>& variables)
      : text_(text), variables_(variables) {}

  Expression parse() {
    Expression expression;
    expression.text_ = text_;
    skip_space();
    if (at_end()) fail(0, "the expression is empty");
    sum();
    skip_space();
    if (!at_end()) fail(position_, std::string("unexpected '") + text_[position_] + "'");
    expression.program_ = std::move(program_);
    return expression;
  }

 private:
  using Code = Expression::Code;

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
  void emit(Code code, std::size_t index = 0, double value = 0.0) {
    // Track the stack depth the program needs, to refuse what evaluate() cannot hold.
    if (code == Code::constant || code == Code::variable) {
      if (++depth_ > Expression::kMaxStack) fail(position_, "the expression is nested too deeply");
    } else if (code != Code::negate && code < Code::exp) {
      --depth_;
    }
    program_.push_back({code, index, value});
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
      if (accept('+')) product(), emit(Code::add);
      else if (accept('-')) product(), emit(Code::subtract);
      else return;
    }
  }
  void product() {
    unary();
    for (;;) {
      if (accept('*')) unary(), emit(Code::multiply);
      else if (accept('/')) unary(), emit(Code::divide);
      else return;
    }
  }
  void unary() {
    const Nesting guard(*this);
    if (accept('-')) {
      unary();
      emit(Code::negate);
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
      emit(Code::power);
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
    emit(Code::constant, 0, value);
  }
  void name(std::size_t start) {
    while (!at_end() && (std::isalnum(static_cast<unsigned char>(text_[position_])) ||
                         text_[position_] == '_'))
      ++position_;
    const std::string word = text_.substr(start, position_ - start);
    skip_space();
    if (!at_end() && text_[position_] == '(') return call(word, start);
    for (std::size_t i = 0; i < variables_.size(); ++i)
      if (variables_[i] == word) return emit(Code::variable, i);
    if (word == "pi") return emit(Code::constant, 0, std::numbers::pi);
    if (word == "e") return emit(Code::constant, 0, std::numbers::e);
    std::string known;
    for (const std::string& v : variables_) known += (known.empty() ? "" : ", ") + v;
    fail(start, "unknown name '" + word + "' (known: " + known + ", pi, e)");
  }
  void call(const std::string& function, std::size_t start) {
    static const std::pair<const char*, Code> kOne[] = {
        {"exp", Code::exp}, {"log", Code::log}, {"log10", Code::log10}, {"sqrt", Code::sqrt},
        {"sin", Code::sin}, {"cos", Code::cos}, {"tan", Code::tan},     {"tanh", Code::tanh},
        {"abs", Code::abs}};
    static const std::pair<const char*, Code> kTwo[] = {
        {"min", Code::min}, {"max", Code::max}, {"pow", Code::power}};
    accept('(');
    for (const auto& [name, code] : kOne)
      if (function == name) {
        sum();
        if (!accept(')')) fail(position_, function + "() takes one argument: ')' expected");
        return emit(code);
      }
    for (const auto& [name, code] : kTwo)
      if (function == name) {
        sum();
        if (!accept(',')) fail(position_, function + "() takes two arguments: ',' expected");
        sum();
        if (!accept(')')) fail(position_, "')' expected");
        return emit(code);
      }
    fail(start, "unknown function '" + function +
                    "' (known: exp log log10 sqrt sin cos tan tanh abs min max pow)");
  }

  const std::string& text_;
  const std::vector<std::string>& variables_;
  std::size_t position_ = 0, depth_ = 0, nesting_ = 0;
  std::vector<Expression::Op> program_;
};

Expression Expression::parse(const std::string& text, const std::vector<std::string>& variables) {
  return ExpressionParser(text, variables).parse();
}

bool Expression::uses(std::size_t variable) const {
  for (const Op& op : program_)
    if (op.code == Code::variable && op.index == variable) return true;
  return false;
}

}  // namespace backsweep
