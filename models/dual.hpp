#pragma once
// Forward-mode dual numbers: a value and N tangent lanes, stored inline (no heap), so a
// Dual works in any generic code: models, whole solves, CUDA kernels. The value type V
// may itself be a Dual, which gives second derivatives (forward-over-forward).
#include <cmath>
#include <cstddef>
#include <type_traits>

#include "platform/host_device.hpp"

namespace backsweep {

template <class V, int N>
struct Dual {
  static_assert(N >= 1, "a Dual needs at least one tangent lane");
  using value_type = V;
  static constexpr int lanes = N;

  V v{};
  V d[N]{};

  constexpr Dual() = default;
  // Constants (including integer and double literals) have zero tangents.
  template <class S>
    requires std::is_arithmetic_v<S>
  BACKSWEEP_HOST_DEVICE constexpr Dual(S value) : v(static_cast<V>(value)) {}
  BACKSWEEP_HOST_DEVICE constexpr Dual(const V& value)
    requires(!std::is_arithmetic_v<V>)
      : v(value) {}

  // A variable: value x, seeded with tangent 1 in lane `lane`.
  BACKSWEEP_HOST_DEVICE static constexpr Dual variable(const V& x, int lane) {
    Dual r(x);
    r.d[lane] = V(1);
    return r;
  }

  BACKSWEEP_HOST_DEVICE constexpr Dual& operator+=(const Dual& o) {
    v += o.v;
    for (int i = 0; i < N; ++i) d[i] += o.d[i];
    return *this;
  }
  BACKSWEEP_HOST_DEVICE constexpr Dual& operator-=(const Dual& o) {
    v -= o.v;
    for (int i = 0; i < N; ++i) d[i] -= o.d[i];
    return *this;
  }
  BACKSWEEP_HOST_DEVICE constexpr Dual& operator*=(const Dual& o) {
    for (int i = 0; i < N; ++i) d[i] = d[i] * o.v + v * o.d[i];
    v *= o.v;
    return *this;
  }
  BACKSWEEP_HOST_DEVICE constexpr Dual& operator/=(const Dual& o) {
    const V inv = V(1) / o.v;
    v *= inv;
    for (int i = 0; i < N; ++i) d[i] = (d[i] - v * o.d[i]) * inv;
    return *this;
  }
};

template <class T>
struct is_dual : std::false_type {};
template <class V, int N>
struct is_dual<Dual<V, N>> : std::true_type {};
template <class T>
inline constexpr bool is_dual_v = is_dual<T>::value;

// The innermost plain number of a (possibly nested) Dual.
BACKSWEEP_HOST_DEVICE constexpr double value_of(double x) { return x; }
BACKSWEEP_HOST_DEVICE constexpr float value_of(float x) { return x; }
template <class V, int N>
BACKSWEEP_HOST_DEVICE constexpr auto value_of(const Dual<V, N>& x) {
  return value_of(x.v);
}

#define BACKSWEEP_DUAL_BINARY(op, compound)                                              \
  template <class V, int N>                                                              \
  BACKSWEEP_HOST_DEVICE constexpr Dual<V, N> operator op(Dual<V, N> a,                   \
                                                         const Dual<V, N>& b) {          \
    return a compound b;                                                                 \
  }                                                                                      \
  template <class V, int N, class S>                                                     \
    requires std::is_arithmetic_v<S>                                                     \
  BACKSWEEP_HOST_DEVICE constexpr Dual<V, N> operator op(Dual<V, N> a, S b) {            \
    return a compound Dual<V, N>(b);                                                     \
  }                                                                                      \
  template <class V, int N, class S>                                                     \
    requires std::is_arithmetic_v<S>                                                     \
  BACKSWEEP_HOST_DEVICE constexpr Dual<V, N> operator op(S a, const Dual<V, N>& b) {     \
    return Dual<V, N>(a) compound b;                                                     \
  }
BACKSWEEP_DUAL_BINARY(+, +=)
BACKSWEEP_DUAL_BINARY(-, -=)
BACKSWEEP_DUAL_BINARY(*, *=)
BACKSWEEP_DUAL_BINARY(/, /=)
#undef BACKSWEEP_DUAL_BINARY

template <class V, int N>
BACKSWEEP_HOST_DEVICE constexpr Dual<V, N> operator+(const Dual<V, N>& a) {
  return a;
}
template <class V, int N>
BACKSWEEP_HOST_DEVICE constexpr Dual<V, N> operator-(const Dual<V, N>& a) {
  Dual<V, N> r;
  r.v = -a.v;
  for (int i = 0; i < N; ++i) r.d[i] = -a.d[i];
  return r;
}

// Comparisons look at values only, so branches in a model follow the primal path.
#define BACKSWEEP_DUAL_COMPARE(op)                                                  \
  template <class V, int N>                                                         \
  BACKSWEEP_HOST_DEVICE constexpr bool operator op(const Dual<V, N>& a,             \
                                                   const Dual<V, N>& b) {           \
    return a.v op b.v;                                                              \
  }                                                                                 \
  template <class V, int N, class S>                                                \
    requires std::is_arithmetic_v<S>                                                \
  BACKSWEEP_HOST_DEVICE constexpr bool operator op(const Dual<V, N>& a, S b) {      \
    return a.v op V(b);                                                             \
  }                                                                                 \
  template <class V, int N, class S>                                                \
    requires std::is_arithmetic_v<S>                                                \
  BACKSWEEP_HOST_DEVICE constexpr bool operator op(S a, const Dual<V, N>& b) {      \
    return V(a) op b.v;                                                             \
  }
BACKSWEEP_DUAL_COMPARE(<)
BACKSWEEP_DUAL_COMPARE(<=)
BACKSWEEP_DUAL_COMPARE(>)
BACKSWEEP_DUAL_COMPARE(>=)
BACKSWEEP_DUAL_COMPARE(==)
BACKSWEEP_DUAL_COMPARE(!=)
#undef BACKSWEEP_DUAL_COMPARE

namespace detail {
// Exactly zero, tangents included (a nested Dual can have a zero value and a nonzero
// tangent).
BACKSWEEP_HOST_DEVICE constexpr bool is_exact_zero(double x) { return x == 0.0; }
BACKSWEEP_HOST_DEVICE constexpr bool is_exact_zero(float x) { return x == 0.0f; }
template <class V, int N>
BACKSWEEP_HOST_DEVICE constexpr bool is_exact_zero(const Dual<V, N>& x) {
  if (!is_exact_zero(x.v)) return false;
  for (int i = 0; i < N; ++i)
    if (!is_exact_zero(x.d[i])) return false;
  return true;
}

// f(a) with derivative f'(a): the chain rule applied to every lane.
template <class V, int N>
BACKSWEEP_HOST_DEVICE constexpr Dual<V, N> chain(const Dual<V, N>& a, const V& f,
                                                 const V& df) {
  Dual<V, N> r;
  r.v = f;
  // Lanes with a zero tangent stay zero even where f' is infinite (sqrt at 0).
  for (int i = 0; i < N; ++i) r.d[i] = is_exact_zero(a.d[i]) ? V(0) : df * a.d[i];
  return r;
}
}  // namespace detail

// Elementary functions. `using std::sin;` then unqualified `sin(x)` in generic code picks
// these for Dual and the std ones for double.
template <class V, int N>
BACKSWEEP_HOST_DEVICE Dual<V, N> sqrt(const Dual<V, N>& a) {
  using std::sqrt;
  const V s = sqrt(a.v);
  return detail::chain(a, s, V(0.5) / s);
}
template <class V, int N>
BACKSWEEP_HOST_DEVICE Dual<V, N> exp(const Dual<V, N>& a) {
  using std::exp;
  const V e = exp(a.v);
  return detail::chain(a, e, e);
}
template <class V, int N>
BACKSWEEP_HOST_DEVICE Dual<V, N> log(const Dual<V, N>& a) {
  using std::log;
  return detail::chain(a, V(log(a.v)), V(V(1) / a.v));
}
template <class V, int N>
BACKSWEEP_HOST_DEVICE Dual<V, N> log10(const Dual<V, N>& a) {
  using std::log;
  return detail::chain(a, V(log(a.v) / std::log(10.0)), V(V(1) / (a.v * std::log(10.0))));
}
template <class V, int N>
BACKSWEEP_HOST_DEVICE Dual<V, N> sin(const Dual<V, N>& a) {
  using std::cos;
  using std::sin;
  return detail::chain(a, V(sin(a.v)), V(cos(a.v)));
}
template <class V, int N>
BACKSWEEP_HOST_DEVICE Dual<V, N> cos(const Dual<V, N>& a) {
  using std::cos;
  using std::sin;
  return detail::chain(a, V(cos(a.v)), V(-sin(a.v)));
}
template <class V, int N>
BACKSWEEP_HOST_DEVICE Dual<V, N> tan(const Dual<V, N>& a) {
  using std::tan;
  const V t = tan(a.v);
  return detail::chain(a, t, V(V(1) + t * t));
}
template <class V, int N>
BACKSWEEP_HOST_DEVICE Dual<V, N> tanh(const Dual<V, N>& a) {
  using std::tanh;
  const V t = tanh(a.v);
  return detail::chain(a, t, V(V(1) - t * t));
}
template <class V, int N>
BACKSWEEP_HOST_DEVICE Dual<V, N> sinh(const Dual<V, N>& a) {
  using std::cosh;
  using std::sinh;
  return detail::chain(a, V(sinh(a.v)), V(cosh(a.v)));
}
template <class V, int N>
BACKSWEEP_HOST_DEVICE Dual<V, N> cosh(const Dual<V, N>& a) {
  using std::cosh;
  using std::sinh;
  return detail::chain(a, V(cosh(a.v)), V(sinh(a.v)));
}
template <class V, int N>
BACKSWEEP_HOST_DEVICE Dual<V, N> atan(const Dual<V, N>& a) {
  using std::atan;
  return detail::chain(a, V(atan(a.v)), V(V(1) / (V(1) + a.v * a.v)));
}
// asin and acos: infinite slopes at ±1, where only lanes with a zero tangent stay finite.
template <class V, int N>
BACKSWEEP_HOST_DEVICE Dual<V, N> asin(const Dual<V, N>& a) {
  using std::asin;
  using std::sqrt;
  return detail::chain(a, V(asin(a.v)), V(V(1) / sqrt(V(1) - a.v * a.v)));
}
template <class V, int N>
BACKSWEEP_HOST_DEVICE Dual<V, N> acos(const Dual<V, N>& a) {
  using std::acos;
  using std::sqrt;
  return detail::chain(a, V(acos(a.v)), V(V(-1) / sqrt(V(1) - a.v * a.v)));
}
template <class V, int N>
BACKSWEEP_HOST_DEVICE Dual<V, N> erf(const Dual<V, N>& a) {
  using std::erf;
  using std::exp;
  // 2/sqrt(pi) as a literal: a constexpr variable is not usable in CUDA device code.
  return detail::chain(a, V(erf(a.v)), V(V(1.1283791670955126) * exp(-(a.v * a.v))));
}
template <class V, int N>
BACKSWEEP_HOST_DEVICE Dual<V, N> abs(const Dual<V, N>& a) {
  return a.v < V(0) ? -a : a;
}
template <class V, int N>
BACKSWEEP_HOST_DEVICE Dual<V, N> pow(const Dual<V, N>& a, const Dual<V, N>& b) {
  using std::log;
  using std::pow;
  const V f = pow(a.v, b.v);
  Dual<V, N> r;
  r.v = f;
  // d(a^b) = b a^(b-1) da + a^b log(a) db; the log term is skipped where db = 0 so
  // that negative bases with constant exponents stay finite.
  const V da = b.v * pow(a.v, b.v - V(1));
  for (int i = 0; i < N; ++i) {
    r.d[i] = da * a.d[i];
    if (!detail::is_exact_zero(b.d[i])) r.d[i] += f * log(a.v) * b.d[i];
  }
  return r;
}
template <class V, int N, class S>
  requires std::is_arithmetic_v<S>
BACKSWEEP_HOST_DEVICE Dual<V, N> pow(const Dual<V, N>& a, S b) {
  using std::pow;
  const V bv(b);
  return detail::chain(a, V(pow(a.v, bv)), V(bv * pow(a.v, bv - V(1))));
}
template <class V, int N, class S>
  requires std::is_arithmetic_v<S>
BACKSWEEP_HOST_DEVICE Dual<V, N> pow(S a, const Dual<V, N>& b) {
  return pow(Dual<V, N>(a), b);
}
// The angle of the point (x, y): d/dy = x/(x^2 + y^2), d/dx = -y/(x^2 + y^2).
template <class V, int N>
BACKSWEEP_HOST_DEVICE Dual<V, N> atan2(const Dual<V, N>& y, const Dual<V, N>& x) {
  using std::atan2;
  Dual<V, N> r;
  r.v = atan2(y.v, x.v);
  const V inv = V(1) / (x.v * x.v + y.v * y.v);
  const V dy = x.v * inv, dx = -(y.v * inv);
  for (int i = 0; i < N; ++i) r.d[i] = dy * y.d[i] + dx * x.d[i];
  return r;
}
template <class V, int N, class S>
  requires std::is_arithmetic_v<S>
BACKSWEEP_HOST_DEVICE Dual<V, N> atan2(const Dual<V, N>& y, S x) {
  return atan2(y, Dual<V, N>(x));
}
template <class V, int N, class S>
  requires std::is_arithmetic_v<S>
BACKSWEEP_HOST_DEVICE Dual<V, N> atan2(S y, const Dual<V, N>& x) {
  return atan2(Dual<V, N>(y), x);
}
template <class V, int N>
BACKSWEEP_HOST_DEVICE Dual<V, N> min(const Dual<V, N>& a, const Dual<V, N>& b) {
  return b < a ? b : a;
}
template <class V, int N>
BACKSWEEP_HOST_DEVICE Dual<V, N> max(const Dual<V, N>& a, const Dual<V, N>& b) {
  return a < b ? b : a;
}
template <class V, int N>
BACKSWEEP_HOST_DEVICE bool isfinite(const Dual<V, N>& a) {
  using std::isfinite;
  if (!isfinite(a.v)) return false;
  for (int i = 0; i < N; ++i)
    if (!isfinite(a.d[i])) return false;
  return true;
}

}  // namespace backsweep
