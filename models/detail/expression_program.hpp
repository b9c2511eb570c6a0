#pragma once
// The compiled form of config expressions: three-address code ("r1 = x * r0") run
// generically over the scalar type (double, Dual, nested Dual).
//
// Operands are read where they lie: in the caller's arrays ("segments": t, the states,
// the parameters) at a (segment, offset) resolved when parsing, or in scratch registers.
// So evaluating copies no inputs, allocates nothing, and a typical right-hand side term
// ("beta*S*I") is one instruction per operator. Constants are immediate operands. A
// program may have several results: a model's equations run as one fused program, each
// equation's last instruction writing its dy_i/dt directly.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "models/dual.hpp"

namespace backsweep::detail {

enum class ExpressionCode : std::uint8_t {
  // dst = a op b
  add, subtract, multiply, divide, power, min, max,
  // dst = a op constant
  add_constant, subtract_constant, multiply_constant, divide_constant, power_constant,
  // dst = constant op a
  constant_subtract, constant_divide,
  // dst = f(a)
  negate, exp, log, log10, sqrt, sin, cos, tan, tanh, abs,
  // dst = a, dst = constant
  copy, copy_constant
};

// Where operands come from: source 0 is the registers, source s + 1 the caller's
// segment s. Where results go: target 0 is the registers, target 1 the outputs.
inline constexpr std::uint8_t kRegisters = 0, kOutputs = 1;
inline constexpr std::size_t kMaxSegments = 7;  // run() copies up to this many
// Registers a program may use; parsing refuses expressions that need more.
inline constexpr std::size_t kRegisterCount = 64;

struct ExpressionOp {
  ExpressionCode code;
  std::uint8_t target = kRegisters;
  std::uint8_t a_source = 0, b_source = 0;
  std::uint32_t dst = 0, a = 0, b = 0;
  double value = 0.0;  // the constant operand
};

bool reads_a(ExpressionCode code);
bool reads_b(ExpressionCode code);

// Arithmetic of a scalar with a plain constant, computing what T's own operators
// compute (for Dual: + moves the value lane alone, * and / scale every lane, / by
// multiplying with the inverse) without building a zero-tangent T for the constant.
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
T constant_minus(double c, T a) {
  if constexpr (is_dual_v<T>) {
    a.v = constant_minus(c, a.v);
    for (int i = 0; i < T::lanes; ++i) a.d[i] = -a.d[i];
    return a;
  } else {
    return T(c) - a;
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
inline bool is_small_integer(double exponent) {
  return exponent == std::round(exponent) && std::abs(exponent) <= 16;
}
template <class T>
T integer_power(const T& x, double exponent) {
  if (exponent == 0) return T(1);
  T result = x;
  for (int k = 1; k < int(std::abs(exponent)); ++k) result = result * x;
  return exponent < 0 ? T(1) / result : result;
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

struct ExpressionProgram {
  std::vector<ExpressionOp> ops;
  std::size_t segments = 0;  // caller segments read: 0 .. segments - 1

  // Appends `other`, its output 0 going to output `output` (its last instruction
  // writes it).
  void append(const ExpressionProgram& other, std::uint32_t output);

  // segments[s][i] is variable i of caller segment s; results go to outputs.
  template <class T>
  void run(const T* const* caller_segments, T* outputs) const {
    using std::abs, std::cos, std::exp, std::log, std::log10, std::sin, std::sqrt, std::tan,
        std::tanh;
    static_assert(std::is_trivially_destructible_v<T> && std::is_trivially_copyable_v<T>);
    // Raw storage: registers are written before they are read, and a Dual would
    // zero-fill itself on construction, which costs more than a small program.
    alignas(T) std::byte storage[kRegisterCount * sizeof(T)];
    T* const registers = reinterpret_cast<T*>(storage);
    const T* sources[kMaxSegments + 1];  // only those the program reads are set
    sources[kRegisters] = registers;
    switch (segments) {  // a loop here becomes a call to memcpy, slower than the program
      case 7: sources[7] = caller_segments[6]; [[fallthrough]];
      case 6: sources[6] = caller_segments[5]; [[fallthrough]];
      case 5: sources[5] = caller_segments[4]; [[fallthrough]];
      case 4: sources[4] = caller_segments[3]; [[fallthrough]];
      case 3: sources[3] = caller_segments[2]; [[fallthrough]];
      case 2: sources[2] = caller_segments[1]; [[fallthrough]];
      case 1: sources[1] = caller_segments[0]; [[fallthrough]];
      default: break;
    }
    T* const targets[2] = {registers, outputs};
#define BACKSWEEP_DST targets[op.target][op.dst]
#define BACKSWEEP_A sources[op.a_source][op.a]
#define BACKSWEEP_B sources[op.b_source][op.b]
    for (const ExpressionOp& op : ops) {
      switch (op.code) {
        case ExpressionCode::add: BACKSWEEP_DST = BACKSWEEP_A + BACKSWEEP_B; break;
        case ExpressionCode::subtract: BACKSWEEP_DST = BACKSWEEP_A - BACKSWEEP_B; break;
        case ExpressionCode::multiply: BACKSWEEP_DST = BACKSWEEP_A * BACKSWEEP_B; break;
        case ExpressionCode::divide: BACKSWEEP_DST = BACKSWEEP_A / BACKSWEEP_B; break;
        case ExpressionCode::power: BACKSWEEP_DST = power(BACKSWEEP_A, BACKSWEEP_B); break;
        case ExpressionCode::min: BACKSWEEP_DST = BACKSWEEP_B < BACKSWEEP_A ? BACKSWEEP_B : BACKSWEEP_A; break;
        case ExpressionCode::max: BACKSWEEP_DST = BACKSWEEP_A < BACKSWEEP_B ? BACKSWEEP_B : BACKSWEEP_A; break;
        case ExpressionCode::add_constant: BACKSWEEP_DST = plus_constant(BACKSWEEP_A, op.value); break;
        case ExpressionCode::subtract_constant: BACKSWEEP_DST = plus_constant(BACKSWEEP_A, -op.value); break;
        case ExpressionCode::multiply_constant: BACKSWEEP_DST = times_constant(BACKSWEEP_A, op.value); break;
        case ExpressionCode::divide_constant: BACKSWEEP_DST = divided_by_constant(BACKSWEEP_A, op.value); break;
        case ExpressionCode::power_constant: BACKSWEEP_DST = power_constant(BACKSWEEP_A, op.value); break;
        case ExpressionCode::constant_subtract: BACKSWEEP_DST = constant_minus(op.value, BACKSWEEP_A); break;
        case ExpressionCode::constant_divide: BACKSWEEP_DST = T(op.value) / BACKSWEEP_A; break;
        case ExpressionCode::negate: BACKSWEEP_DST = -BACKSWEEP_A; break;
        case ExpressionCode::exp: BACKSWEEP_DST = exp(BACKSWEEP_A); break;
        case ExpressionCode::log: BACKSWEEP_DST = log(BACKSWEEP_A); break;
        case ExpressionCode::log10: BACKSWEEP_DST = log10(BACKSWEEP_A); break;
        case ExpressionCode::sqrt: BACKSWEEP_DST = sqrt(BACKSWEEP_A); break;
        case ExpressionCode::sin: BACKSWEEP_DST = sin(BACKSWEEP_A); break;
        case ExpressionCode::cos: BACKSWEEP_DST = cos(BACKSWEEP_A); break;
        case ExpressionCode::tan: BACKSWEEP_DST = tan(BACKSWEEP_A); break;
        case ExpressionCode::tanh: BACKSWEEP_DST = tanh(BACKSWEEP_A); break;
        case ExpressionCode::abs: BACKSWEEP_DST = abs(BACKSWEEP_A); break;
        case ExpressionCode::copy: BACKSWEEP_DST = BACKSWEEP_A; break;
        case ExpressionCode::copy_constant: BACKSWEEP_DST = T(op.value); break;
      }
    }
#undef BACKSWEEP_DST
#undef BACKSWEEP_A
#undef BACKSWEEP_B
  }
};

}  // namespace backsweep::detail
