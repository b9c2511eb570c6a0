#pragma once
// Arithmetic of a scalar (double, Dual, nested Dual) with a plain constant, and powers,
// as config expressions compute them (expression_program.hpp).
#include <cmath>
#include <type_traits>

#include "models/detail/dependency_tracer.hpp"
#include "models/dual.hpp"

namespace backsweep::detail {

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
  if constexpr (std::is_same_v<T, DependencyTracer>) return pow(x, y);  // both operands, always
  if (has_zero_tangent(y) && is_small_integer(value_of(y))) return integer_power(x, value_of(y));
  return pow(x, y);
}
template <class T>
T power_constant(const T& x, double c) {
  using std::pow;
  if (is_small_integer(c)) return integer_power(x, c);
  return pow(x, T(c));
}

// d/dx x^c for a constant c, along the path power_constant() takes (integer powers by
// repeated multiplication), so reverse mode differentiates what run() computed.
template <class T>
T power_constant_slope(const T& x, double c) {
  using std::pow;
  if (is_small_integer(c)) return c == 0 ? T(0) : times_constant(integer_power(x, c - 1), c);
  return times_constant(pow(x, T(c - 1)), c);
}

}  // namespace backsweep::detail
