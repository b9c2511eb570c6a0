#pragma once
// Expressions written in config files ("alpha*x - beta*x*y"), parsed once into a compact
// postfix program and evaluated generically over the scalar type, so Dual derivatives,
// adjoints and Jacobians work on them exactly as on C++ code.
//
// Syntax: numbers, names, + - * / ^ (right-associative), unary minus, parentheses,
// exp log log10 sqrt sin cos tan tanh abs (one argument), min max pow (two), and the
// constants pi and e. Variables are named when parsing; evaluate() takes their values
// in that order.
#include <array>
#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/dual.hpp"

namespace backsweep {

class ExpressionError : public std::runtime_error {
 public:
  ExpressionError(std::size_t column, const std::string& message)
      : std::runtime_error(message), column_(column) {}
  std::size_t column() const { return column_; }  // 1-based, inside the expression text

 private:
  std::size_t column_;
};

class Expression {
 public:
  static constexpr std::size_t kMaxStack = 64;

  // Throws ExpressionError (with the column) on a syntax error or an unknown name; the
  // message of an unknown name lists the known ones.
  static Expression parse(const std::string& text, const std::vector<std::string>& variables);

  const std::string& text() const { return text_; }
  // Whether variable i occurs in the expression.
  bool uses(std::size_t variable) const;

  template <class T>
  T evaluate(const T* variables) const {
    using std::abs, std::cos, std::exp, std::log, std::log10, std::pow, std::sin, std::sqrt,
        std::tan, std::tanh;
    std::array<T, kMaxStack> stack;
    std::size_t top = 0;
    for (const Op& op : program_) {
      switch (op.code) {
        case Code::constant: stack[top++] = T(op.value); break;
        case Code::variable: stack[top++] = variables[op.index]; break;
        case Code::negate: stack[top - 1] = -stack[top - 1]; break;
        case Code::add: --top; stack[top - 1] = stack[top - 1] + stack[top]; break;
        case Code::subtract: --top; stack[top - 1] = stack[top - 1] - stack[top]; break;
        case Code::multiply: --top; stack[top - 1] = stack[top - 1] * stack[top]; break;
        case Code::divide: --top; stack[top - 1] = stack[top - 1] / stack[top]; break;
        case Code::power: --top; stack[top - 1] = power(stack[top - 1], stack[top]); break;
        case Code::min: --top; if (stack[top] < stack[top - 1]) stack[top - 1] = stack[top]; break;
        case Code::max: --top; if (stack[top - 1] < stack[top]) stack[top - 1] = stack[top]; break;
        case Code::exp: stack[top - 1] = exp(stack[top - 1]); break;
        case Code::log: stack[top - 1] = log(stack[top - 1]); break;
        case Code::log10: stack[top - 1] = log10(stack[top - 1]); break;
        case Code::sqrt: stack[top - 1] = sqrt(stack[top - 1]); break;
        case Code::sin: stack[top - 1] = sin(stack[top - 1]); break;
        case Code::cos: stack[top - 1] = cos(stack[top - 1]); break;
        case Code::tan: stack[top - 1] = tan(stack[top - 1]); break;
        case Code::tanh: stack[top - 1] = tanh(stack[top - 1]); break;
        case Code::abs: stack[top - 1] = abs(stack[top - 1]); break;
      }
    }
    return stack[0];
  }

  enum class Code {
    constant, variable, negate, add, subtract, multiply, divide, power, min, max,
    exp, log, log10, sqrt, sin, cos, tan, tanh, abs
  };
  struct Op {
    Code code;
    std::size_t index = 0;  // variable
    double value = 0.0;     // constant
  };

 private:
  // x^y: an integer constant exponent stays exact and finite for negative bases.
  template <class T>
  static T power(const T& x, const T& y) {
    using std::pow;
    const double exponent = value_of(y);
    if (detail_is_constant(y) && exponent == std::round(exponent) && std::abs(exponent) <= 16) {
      T result(1);
      for (int k = 0; k < int(std::abs(exponent)); ++k) result = result * x;
      return exponent < 0 ? T(1) / result : result;
    }
    return pow(x, y);
  }
  template <class T>
  static bool detail_is_constant(const T& y) {
    if constexpr (is_dual_v<T>) {
      for (int i = 0; i < T::lanes; ++i)
        if (!detail::is_exact_zero(y.d[i])) return false;
      return detail_is_constant(y.v);
    } else {
      return true;
    }
  }

  std::string text_;
  std::vector<Op> program_;
  friend class ExpressionParser;
};

}  // namespace backsweep
