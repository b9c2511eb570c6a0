#pragma once
// The compiled form of config expressions: a postfix program for a small stack machine,
// run generically over the scalar type (double, Dual, nested Dual).
//
// Variables are read from separate arrays ("segments": t, the states, the parameters)
// at a (segment, offset) resolved when parsing, so evaluating never copies its inputs.
// A program may compute several results (one `store` each): a model's equations run
// as one fused program. The common shapes `a op variable` and `a op constant` are single
// instructions, which halves the dispatches of typical right-hand sides.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "models/dual.hpp"

namespace backsweep::detail {

enum class ExpressionCode : std::uint8_t {
  // push
  constant, variable,
  // pop two, push one
  add, subtract, multiply, divide, power, min, max,
  // replace the top with `top op variable` / `top op constant`
  add_variable, subtract_variable, multiply_variable, divide_variable,
  add_constant, subtract_constant, multiply_constant, divide_constant, power_constant,
  // replace the top
  negate, exp, log, log10, sqrt, sin, cos, tan, tanh, abs,
  // pop into outputs[index]
  store
};

struct ExpressionOp {
  ExpressionCode code;
  std::uint8_t segment = 0;  // variable operands
  std::uint32_t index = 0;   // variable offset in its segment, or output index of store
  double value = 0.0;        // constant operands
};

// How many stack slots evaluation has; parsing refuses deeper expressions.
inline constexpr std::size_t kExpressionStackSize = 64;

// Arithmetic of a scalar with a plain constant, exactly as T's own operators compute it
// (for Dual: the value lane alone moves under +, every lane is scaled under * and /)
// without building a zero-tangent T for the constant.
template <class T>
T plus_constant(T a, double c) {
  if constexpr (is_dual_v<T>) {
    a.v = plus_constant(a.v, c);
    return a;
  } else {
    return a + T(c);
  }
}
template <class T>
T times_constant(T a, double c) {
  if constexpr (is_dual_v<T>) {
    a.v = times_constant(a.v, c);
    for (int i = 0; i < T::lanes; ++i) a.d[i] = times_constant(a.d[i], c);
    return a;
  } else {
    return a * T(c);
  }
}
// Dual division multiplies by the inverse (dual.hpp); plain numbers divide.
template <class T>
T divided_by_constant(const T& a, double c) {
  if constexpr (is_dual_v<T>) return times_constant(a, 1.0 / c);
  else return a / T(c);
}

// x^y: an integer constant exponent stays exact and finite for negative bases.
template <class T>
bool has_zero_tangent(const T& y) {
  if constexpr (is_dual_v<T>) {
    for (int i = 0; i < T::lanes; ++i)
      if (!is_exact_zero(y.d[i])) return false;
    return has_zero_tangent(y.v);
  } else {
    return true;
  }
}
template <class T>
T integer_power(const T& x, double exponent) {
  if (exponent == 0) return T(1);
  T result = x;
  for (int k = 1; k < int(std::abs(exponent)); ++k) result = result * x;
  return exponent < 0 ? T(1) / result : result;
}
inline bool is_small_integer(double exponent) {
  return exponent == std::round(exponent) && std::abs(exponent) <= 16;
}
template <class T>
T power(const T& x, const T& y) {
  using std::pow;
  if (has_zero_tangent(y) && is_small_integer(value_of(y))) return integer_power(x, value_of(y));
  return pow(x, y);
}
template <class T>
T power_constant(const T& x, double c) {
  using std::pow;
  if (is_small_integer(c)) return integer_power(x, c);
  return pow(x, T(c));
}

// Runs `count` instructions. segments[s][i] is variable i of segment s; results go to
// outputs[index] of each store. The stack is left uninitialised: a Dual zero-fills
// itself on construction, which would cost more than the program.
template <class T>
void run_expression_program(const ExpressionOp* op, std::size_t count, const T* const* segments,
                            T* outputs) {
  using std::abs, std::cos, std::exp, std::log, std::log10, std::sin, std::sqrt, std::tan,
      std::tanh;
  union Slot {
    T value;
    Slot() {}
  };
  static_assert(std::is_trivially_destructible_v<T> && std::is_trivially_copy_assignable_v<T>,
                "the stack assigns into uninitialised slots");
  Slot stack[kExpressionStackSize];
  std::size_t top = 0;  // slots in use
#define BACKSWEEP_TOP stack[top - 1].value
#define BACKSWEEP_NEXT stack[top].value
#define BACKSWEEP_VARIABLE segments[op->segment][op->index]
  for (const ExpressionOp* const end = op + count; op != end; ++op) {
    switch (op->code) {
      case ExpressionCode::constant: stack[top++].value = T(op->value); break;
      case ExpressionCode::variable: stack[top++].value = BACKSWEEP_VARIABLE; break;
      case ExpressionCode::add: --top; BACKSWEEP_TOP += BACKSWEEP_NEXT; break;
      case ExpressionCode::subtract: --top; BACKSWEEP_TOP -= BACKSWEEP_NEXT; break;
      case ExpressionCode::multiply: --top; BACKSWEEP_TOP *= BACKSWEEP_NEXT; break;
      case ExpressionCode::divide: --top; BACKSWEEP_TOP /= BACKSWEEP_NEXT; break;
      case ExpressionCode::power: --top; BACKSWEEP_TOP = power(BACKSWEEP_TOP, BACKSWEEP_NEXT); break;
      case ExpressionCode::min: --top; if (BACKSWEEP_NEXT < BACKSWEEP_TOP) BACKSWEEP_TOP = BACKSWEEP_NEXT; break;
      case ExpressionCode::max: --top; if (BACKSWEEP_TOP < BACKSWEEP_NEXT) BACKSWEEP_TOP = BACKSWEEP_NEXT; break;
      case ExpressionCode::add_variable: BACKSWEEP_TOP += BACKSWEEP_VARIABLE; break;
      case ExpressionCode::subtract_variable: BACKSWEEP_TOP -= BACKSWEEP_VARIABLE; break;
      case ExpressionCode::multiply_variable: BACKSWEEP_TOP *= BACKSWEEP_VARIABLE; break;
      case ExpressionCode::divide_variable: BACKSWEEP_TOP /= BACKSWEEP_VARIABLE; break;
      case ExpressionCode::add_constant: BACKSWEEP_TOP = plus_constant(BACKSWEEP_TOP, op->value); break;
      case ExpressionCode::subtract_constant: BACKSWEEP_TOP = plus_constant(BACKSWEEP_TOP, -op->value); break;
      case ExpressionCode::multiply_constant: BACKSWEEP_TOP = times_constant(BACKSWEEP_TOP, op->value); break;
      case ExpressionCode::divide_constant: BACKSWEEP_TOP = divided_by_constant(BACKSWEEP_TOP, op->value); break;
      case ExpressionCode::power_constant: BACKSWEEP_TOP = power_constant(BACKSWEEP_TOP, op->value); break;
      case ExpressionCode::negate: BACKSWEEP_TOP = -BACKSWEEP_TOP; break;
      case ExpressionCode::exp: BACKSWEEP_TOP = exp(BACKSWEEP_TOP); break;
      case ExpressionCode::log: BACKSWEEP_TOP = log(BACKSWEEP_TOP); break;
      case ExpressionCode::log10: BACKSWEEP_TOP = log10(BACKSWEEP_TOP); break;
      case ExpressionCode::sqrt: BACKSWEEP_TOP = sqrt(BACKSWEEP_TOP); break;
      case ExpressionCode::sin: BACKSWEEP_TOP = sin(BACKSWEEP_TOP); break;
      case ExpressionCode::cos: BACKSWEEP_TOP = cos(BACKSWEEP_TOP); break;
      case ExpressionCode::tan: BACKSWEEP_TOP = tan(BACKSWEEP_TOP); break;
      case ExpressionCode::tanh: BACKSWEEP_TOP = tanh(BACKSWEEP_TOP); break;
      case ExpressionCode::abs: BACKSWEEP_TOP = abs(BACKSWEEP_TOP); break;
      case ExpressionCode::store: outputs[op->index] = stack[--top].value; break;
    }
  }
#undef BACKSWEEP_TOP
#undef BACKSWEEP_NEXT
#undef BACKSWEEP_VARIABLE
}

}  // namespace backsweep::detail
