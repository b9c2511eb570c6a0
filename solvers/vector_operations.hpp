#pragma once
// The handful of vector operations the engine needs, written once as element-wise
// operations and run by an Algebra (solvers/algebra.hpp): the host loop (CpuAlgebra) or
// a device (gpu::ThrustAlgebra). Each operation is a small functor marked
// BACKSWEEP_HOST_DEVICE that holds raw pointers, so it can be copied into a kernel.
//
// Scalars may be double or Dual (tangents ride along); norms and finiteness look at
// values only, so tangent lanes never steer a solve.
#include <cmath>
#include <cstddef>
#include <type_traits>

#include "models/dual.hpp"
#include "solvers/algebra.hpp"
#include "solvers/butcher_tableau.hpp"

namespace backsweep {

// Host vectors from this length on (a grid model's) are scanned by out-of-line loops
// (all_finite; the growth monitor's bins); shorter ones stay inline, where a call would
// cost a small model more than the loop.
inline constexpr std::size_t kLongVector = 4096;

// Whether every value is finite: one vectorised pass (solvers/vector_scans.cpp).
bool all_finite(std::size_t n, const double* x);

namespace detail {

// x * c for a plain constant c, computing only what Dual's own operator* would compute
// nonzero (no zero-tangent Dual is built for the constant).
template <class T>
BACKSWEEP_HOST_DEVICE BACKSWEEP_INLINE T scaled(const T& x, double c) {
  if constexpr (is_dual_v<T>) {
    T r;
    r.v = scaled(x.v, c);
    for (int i = 0; i < T::lanes; ++i) r.d[i] = scaled(x.d[i], c);
    return r;
  } else {
    return x * c;
  }
}

template <class T>
BACKSWEEP_HOST_DEVICE bool all_lanes_finite(const T& x) {
  using std::isfinite;
  return isfinite(x);
}

template <class T>
struct Copy {
  const T* from;
  T* to;
  BACKSWEEP_HOST_DEVICE void operator()(std::size_t i) const { to[i] = from[i]; }
};
template <class T>
struct Fill {
  T value;
  T* to;
  BACKSWEEP_HOST_DEVICE void operator()(std::size_t i) const { to[i] = value; }
};
template <class T>
struct Add {
  const T* x;
  T* y;
  BACKSWEEP_HOST_DEVICE void operator()(std::size_t i) const { y[i] += x[i]; }
};
template <class T>
struct Axpy {
  double a;
  const T* x;
  T* y;
  BACKSWEEP_HOST_DEVICE void operator()(std::size_t i) const { y[i] += scaled(x[i], a); }
};

// out = base + sum_{j < count, weight[j] != 0} (h weight[j]) v_j, the v_j laid out one
// after another `stride` apart (the stages of a Runge-Kutta step); base may be null (then
// out is the sum alone, 0 when every weight is 0). The sum runs in j order, so its
// rounding is the same on every algebra. The weights are copied in: a device kernel
// cannot read the host's tableau. `count` is usually a compile-time constant after
// inlining, and the whole sum unrolls.
template <class T>
struct WeightedSum {
  const T* base;
  const T* v;
  std::size_t stride;
  double weight[kMaxStages];
  int count;
  double h;
  T* out;

  BACKSWEEP_HOST_DEVICE BACKSWEEP_INLINE WeightedSum(const T* base, const T* v, std::size_t stride,
                                                     const double* weights, int count, double h,
                                                     T* out)
      : base(base), v(v), stride(stride), weight{}, count(count), h(h), out(out) {
    for (int j = 0; j < count; ++j) weight[j] = weights[j];
  }

  BACKSWEEP_HOST_DEVICE BACKSWEEP_INLINE void operator()(std::size_t i) const {
    int j = 0;
    while (j < count && weight[j] == 0.0) ++j;
    if (j == count) {
      out[i] = base ? base[i] : T(0);
      return;
    }
    T sum = scaled(v[std::size_t(j) * stride + i], h * weight[j]);
    for (++j; j < count; ++j)
      if (weight[j] != 0.0) sum += scaled(v[std::size_t(j) * stride + i], h * weight[j]);
    out[i] = base ? base[i] + sum : sum;
  }
};

template <class T>
struct SquaredValue {
  const T* x;
  BACKSWEEP_HOST_DEVICE double operator()(std::size_t i) const {
    const double v = value_of(x[i]);
    return v * v;
  }
};
template <class T>
struct Value {
  const T* x;
  BACKSWEEP_HOST_DEVICE double operator()(std::size_t i) const { return value_of(x[i]); }
};
template <class T>
struct NotFinite {
  const T* x;
  BACKSWEEP_HOST_DEVICE bool operator()(std::size_t i) const { return !all_lanes_finite(x[i]); }
};
// (error_i / (atol + rtol max(|y_i|, |y_next_i|)))^2, 0 where the error is 0 (also where
// the scale is 0: atol = 0 and a zero component).
template <class T>
struct ScaledErrorSquared {
  const T *error, *y, *y_next;
  double rtol, atol;
  BACKSWEEP_HOST_DEVICE double operator()(std::size_t i) const {
    const double e = value_of(error[i]);
    if (e == 0.0) return 0.0;
    const double a = fabs(value_of(y[i])), b = fabs(value_of(y_next[i]));
    const double r = e / (atol + rtol * (a > b ? a : b));
    return r * r;
  }
};

// (v_i / (atol + rtol |y_i|))^2, 0 where that scale is 0 (atol = 0 and a zero component:
// no information).
template <class T>
struct ScaledSquared {
  const T *v, *y;
  double rtol, atol;
  BACKSWEEP_HOST_DEVICE double operator()(std::size_t i) const {
    const double scale = atol + rtol * fabs(value_of(y[i]));
    if (scale == 0.0) return 0.0;
    const double r = value_of(v[i]) / scale;
    return r * r;
  }
};

}  // namespace detail

BACKSWEEP_EXEC_CHECK_DISABLE
template <Algebra A, class T>
BACKSWEEP_HOST_DEVICE BACKSWEEP_INLINE void copy(std::size_t n, const T* from, T* to) {
  A::for_each(n, detail::Copy<T>{from, to});
}
BACKSWEEP_EXEC_CHECK_DISABLE
template <Algebra A, class T>
BACKSWEEP_HOST_DEVICE void fill(std::size_t n, const T& value, T* to) {
  A::for_each(n, detail::Fill<T>{value, to});
}
// y += x
BACKSWEEP_EXEC_CHECK_DISABLE
template <Algebra A, class T>
BACKSWEEP_HOST_DEVICE BACKSWEEP_INLINE void add(std::size_t n, const T* x, T* y) {
  A::for_each(n, detail::Add<T>{x, y});
}
// y += a x
BACKSWEEP_EXEC_CHECK_DISABLE
template <Algebra A, class T>
BACKSWEEP_HOST_DEVICE BACKSWEEP_INLINE void axpy(std::size_t n, double a, const T* x, T* y) {
  A::for_each(n, detail::Axpy<T>{a, x, y});
}

// sum_i value(x_i)^2
BACKSWEEP_EXEC_CHECK_DISABLE
template <Algebra A, class T>
BACKSWEEP_HOST_DEVICE double squared_norm(std::size_t n, const T* x) {
  return A::sum(n, detail::SquaredValue<T>{x});
}

// The first component that is NaN or Inf (in its value or any tangent lane), or n when
// all are finite. Fast path: one sum of the values (NaN or Inf anywhere makes it
// non-finite); only then, or for Dual lanes, is x scanned. A long host vector is checked
// by all_finite instead, whose pass a chain of dependent additions does not hold back.
// Inlined: called at every step, on states that are often a few numbers long.
BACKSWEEP_EXEC_CHECK_DISABLE
template <Algebra A, class T>
BACKSWEEP_HOST_DEVICE BACKSWEEP_INLINE std::size_t first_non_finite(std::size_t n, const T* x) {
  if constexpr (requires { A::first_non_finite(n, x); }) {
    return A::first_non_finite(n, x);  // an algebra's own scan (solvers/rank_algebra.hpp)
  } else {
    if constexpr (host_vectors<A> && std::is_same_v<T, double>)
      if (n >= kLongVector) return all_finite(n, x) ? n : A::first_index(n, detail::NotFinite<T>{x});
    if (std::isfinite(A::sum(n, detail::Value<T>{x})) && !is_dual_v<T>) return n;
    return A::first_index(n, detail::NotFinite<T>{x});
  }
}

// sqrt(mean_i (error_i / (atol + rtol max(|y_i|, |y_next_i|)))^2), the weighted RMS norm
// of an embedded error estimate; +inf when not finite.
BACKSWEEP_EXEC_CHECK_DISABLE
template <Algebra A, class T>
BACKSWEEP_HOST_DEVICE
double error_norm(std::size_t n, const T* error, const T* y, const T* y_next, double rtol,
                  double atol) {
  const double sum = A::sum(n, detail::ScaledErrorSquared<T>{error, y, y_next, rtol, atol});
  const double norm = std::sqrt(sum / double(n));
  return std::isfinite(norm) ? norm : INFINITY;
}

// sqrt(mean_i (v_i / (atol + rtol |y_i|))^2), skipping components whose scale is 0.
BACKSWEEP_EXEC_CHECK_DISABLE
template <Algebra A, class T>
BACKSWEEP_HOST_DEVICE
double scaled_rms_norm(std::size_t n, const T* v, const T* y, double rtol, double atol) {
  return std::sqrt(A::sum(n, detail::ScaledSquared<T>{v, y, rtol, atol}) / double(n));
}

// counts[bin_of(i)] += 1 for every i < n (each bin_of(i) < bins). Counting is a
// read-modify-write on shared bins: an algebra that can count in parallel has its own
// count_bins; any other counts in order on the host.
template <Algebra A, class BinOf>
void count_bins(std::size_t n, const BinOf& bin_of, std::size_t bins, std::size_t* counts) {
  if constexpr (requires { A::count_bins(n, bin_of, bins, counts); })
    A::count_bins(n, bin_of, bins, counts);
  else
    for (std::size_t i = 0; i < n; ++i) ++counts[bin_of(i)];
}

}  // namespace backsweep
