#pragma once
// Expressions written in config files ("alpha*x - beta*x*y"), parsed once into a compact
// postfix program and evaluated generically over the scalar type, so Dual derivatives,
// adjoints and Jacobians work on them exactly as on C++ code. Evaluation never
// allocates.
//
// Syntax: numbers, names, + - * / ^ (right-associative), unary minus, parentheses,
// exp log log10 sqrt sin cos tan tanh abs atan asin acos sinh cosh erf (one argument),
// min max pow atan2 (two; atan2(y, x) is the angle of the point (x, y)), and the
// constants pi and e; comparisons < <= > >= == != (1 where they hold, else 0), `and`,
// `or`, and if(condition, a, b) (a where the condition is not 0, else b; derivatives
// follow the branch taken, comparisons have none). The names an expression may use are
// declared in an ExpressionScope: variables in segments (each evaluated from its own
// array, so a right-hand side reads t, y and p where they lie), named constants, fields
// (arrays on a grid: u[3, 4] is one value, sum(u) and mean(u) reduce it) and operators
// (stencils such as lap(u), which the scope resolves to variables).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "models/expression_program.hpp"

namespace backsweep {

class ExpressionError : public std::runtime_error {
 public:
  ExpressionError(std::size_t column, const std::string& message)
      : std::runtime_error(message), column_(column) {}
  std::size_t column() const { return column_; }  // 1-based, inside the expression text

 private:
  std::size_t column_;
};

// Whether `name` is a function or built-in constant of the expression syntax (sin, pi).
bool is_reserved_expression_name(std::string_view name);
// Whether `name` can be written in an expression: a letter or '_', then letters, digits, '_'.
bool is_expression_identifier(std::string_view name);

// The names an expression may use. Segment s holds the variables evaluate_segments()
// reads from its array s, in order (at most 7 segments); constants are folded into the
// program.
class ExpressionScope {
 public:
  ExpressionScope() = default;
  // One segment: the variables of evaluate(const T*).
  explicit ExpressionScope(const std::vector<std::string>& variables) { add_segment(variables); }

  // Why `name` cannot be declared here (not an identifier, reserved, already declared),
  // or nothing when it can.
  std::optional<std::string> problem_with(std::string_view name) const;

  // Both throw std::invalid_argument with problem_with()'s reason for a bad name.
  void add_segment(const std::vector<std::string>& names);
  void add_constant(const std::string& name, double value);

  struct Name {
    bool is_constant;
    std::uint8_t segment;
    std::uint32_t offset;
    double value;
  };
  std::optional<Name> find(std::string_view name) const;

  // A field: `shape` values of segment `segment` (added before) from `offset`, in array
  // order; the segment grows to hold them.
  struct Field {
    std::uint8_t segment;
    std::uint32_t offset;
    std::vector<std::size_t> shape;
  };
  // Throws std::invalid_argument as add_segment() does.
  void add_field(const std::string& name, const Field& field);
  const Field* find_field(std::string_view name) const;
  bool has_fields() const { return !fields_.empty(); }

  // Operators: calls f(a, b, ...) of names as arguments, resolved to a variable by
  // `resolve`, which throws std::invalid_argument (the message) for arguments it refuses.
  using OperatorResolver = std::function<Name(std::string_view, const std::vector<std::string>&)>;
  void set_operators(std::vector<std::string> names, OperatorResolver resolve);
  bool is_operator(std::string_view name) const;
  Name resolve_operator(std::string_view name, const std::vector<std::string>& arguments) const {
    return resolve_(name, arguments);
  }
  std::size_t segment_count() const { return segment_sizes_.size(); }
  std::size_t segment_size(std::size_t segment) const { return segment_sizes_.at(segment); }
  // "t, x, y, alpha, pi, e": what an unknown-name error lists.
  std::string known_names() const;

 private:
  void declare(const std::string& name, Name meaning);
  std::unordered_map<std::string, Name> names_;
  std::unordered_map<std::string, Field> fields_;
  std::vector<std::string> operators_;
  OperatorResolver resolve_;
  std::vector<std::string> order_;  // declaration order, for messages
  std::vector<std::size_t> segment_sizes_;
};

class Expression {
 public:
  // Throws ExpressionError (with the column) on a syntax error or an unknown name; the
  // message of an unknown name lists the known ones.
  static Expression parse(const std::string& text, const ExpressionScope& scope);
  // The variables form one segment: evaluate(values) takes them in this order.
  static Expression parse(const std::string& text, const std::vector<std::string>& variables) {
    return parse(text, ExpressionScope(variables));
  }

  const std::string& text() const { return text_; }
  // Whether variable `offset` of segment `segment` occurs in the expression.
  bool uses(std::size_t segment, std::size_t offset) const;
  bool uses(std::size_t variable) const { return uses(0, variable); }

  // The value for variables in one array (a one-segment scope).
  template <class T>
  T evaluate(const T* variables) const {
    return evaluate_segments(&variables);
  }
  // The value for variables in segments[0], segments[1], ... as declared in the scope.
  template <class T>
  T evaluate_segments(const T* const* segments) const {
    T result{};
    program_.run(segments, &result);
    return result;
  }

  // The value, and its gradient by reverse mode (one taped run, one backward pass):
  // segment_gradients[s][i] = d value / d(variable i of segment s). Overwrites the
  // non-null gradients (one per segment of the scope, sized as declared there); a null
  // one is skipped. `tape` is workspace, sized on first use: reuse it to not allocate.
  template <class T>
  T gradient(const T* const* segments, T* const* segment_gradients, std::vector<T>& tape) const {
    for (std::size_t s = 0; s < segment_sizes_.size(); ++s)
      if (segment_gradients[s])
        for (std::size_t i = 0; i < segment_sizes_[s]; ++i) segment_gradients[s][i] = T(0);
    tape.resize(program_.ops.size());
    T value{};
    program_.run_taping(segments, &value, tape.data());
    const T one(1);
    program_.reverse(segments, tape.data(), &one, segment_gradients);
    return value;
  }

  // The compiled program: its last instruction writes the value to output 0.
  const detail::ExpressionProgram& program() const { return program_; }

 private:
  std::string text_;
  detail::ExpressionProgram program_;
  std::vector<std::size_t> segment_sizes_;  // the scope's, for gradient()
  friend class ExpressionParser;
};

}  // namespace backsweep
