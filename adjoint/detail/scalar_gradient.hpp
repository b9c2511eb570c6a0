#pragma once
// Values and gradients of the scalar terms of an objective, and the compensated sum that
// accumulates the parameter gradient over many steps.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "models/derivatives.hpp"
#include "models/detail/dependency_tracer.hpp"
#include "solvers/algebra.hpp"

namespace backsweep::detail {

// Value and gradient of a scalar function of (y, p) by Dual numbers, a chunk of lanes
// at a time, with buffers sized once: the way for terms that do not differentiate
// themselves. f is called as f(y, p) with Dual arrays.
//
// Seeding every column costs (n + np) / lanes evaluations of O(n) each: O(n^2) for a
// grid model. A term of many states usually reads a few (a field's value at a point), so
// above kTraceAbove columns a dependency trace at (y, p) picks the columns first; a term
// that reads many of them gives up the trace within a small budget and is seeded densely.
template <class V>
class ScalarGradient {
 public:
  using Lanes = Dual<V, kDerivativeLanes>;
  static constexpr std::size_t kTraceAbove = 64;

  // The dual-number buffers (nine doubles an entry) are sized on first use: a term that is
  // never evaluated (no terminal term, or a copy of the objective the run does not call)
  // costs nothing, where on a grid it would hold 2 x 72 bytes per state and parameter.
  ScalarGradient(std::size_t n, std::size_t np) : n_(n), np_(np) {}

  // Returns f(y, p) and writes df/dy and df/dp (df/dp only when grad_p is given).
  template <class F>
  V operator()(F&& f, const V* y, const V* p, V* grad_y, V* grad_p) {
    const std::size_t columns = n_ + (grad_p ? np_ : 0);
    if (columns <= kTraceAbove || !trace(f, y, p, columns)) {
      columns_.resize(columns);
      for (std::size_t c = 0; c < columns; ++c) columns_[c] = std::uint32_t(c);
    }
    std::fill(grad_y, grad_y + n_, V(0));
    if (grad_p) std::fill(grad_p, grad_p + np_, V(0));
    y_.resize(n_);
    p_.resize(np_);
    for (std::size_t i = 0; i < n_; ++i) y_[i] = Lanes(y[i]);
    for (std::size_t j = 0; j < np_; ++j) p_[j] = Lanes(p[j]);
    auto seed = [&](std::size_t column, int lane, V d) {
      if (column < n_) y_[column].d[lane] = d;
      else p_[column - n_].d[lane] = d;
    };
    V value(0);
    for (std::size_t first = 0; first < std::max<std::size_t>(columns_.size(), 1);
         first += kDerivativeLanes) {
      const int lanes = int(std::min<std::size_t>(kDerivativeLanes, columns_.size() - first));
      for (int k = 0; k < lanes; ++k) seed(columns_[first + std::size_t(k)], k, V(1));
      const Lanes result = f(static_cast<const Lanes*>(y_.data()), static_cast<const Lanes*>(p_.data()));
      value = result.v;
      for (int k = 0; k < lanes; ++k) {
        const std::size_t column = columns_[first + std::size_t(k)];
        (column < n_ ? grad_y[column] : grad_p[column - n_]) = result.d[k];
        seed(column, k, V(0));
      }
    }
    return value;
  }

 private:
  // The columns below `columns` that f depends on at (y, p), into columns_; false when f
  // cannot be traced or reads too many.
  template <class F>
  bool trace(F& f, const V* y, const V* p, std::size_t columns) {
    if constexpr (std::is_same_v<V, double>) return trace_values(f, y, p, columns);
    return false;
  }
  template <class F>
  bool trace_values(F& f, const double* y, const double* p, std::size_t columns) {
    using detail::DependencyTracer;
    if constexpr (std::is_invocable_v<F&, const DependencyTracer*, const DependencyTracer*>) {
      if (n_ + np_ > std::size_t{UINT32_MAX}) return false;
      DependencyTape tape(8 * (n_ + np_));
      traced_y_.resize(n_);
      traced_p_.resize(np_);
      try {
        for (std::size_t i = 0; i < n_; ++i)
          traced_y_[i] = DependencyTracer(y[i], tape.variable(std::uint32_t(i)), &tape);
        for (std::size_t j = 0; j < np_; ++j)
          traced_p_[j] = DependencyTracer(p[j], tape.variable(std::uint32_t(n_ + j)), &tape);
        const DependencyTracer result = f(static_cast<const DependencyTracer*>(traced_y_.data()),
                                          static_cast<const DependencyTracer*>(traced_p_.data()));
        columns_.clear();
        for (std::uint32_t column : tape.set(result.set))
          if (column < columns) columns_.push_back(column);
        return true;
      } catch (const std::length_error&) {
        return false;
      }
    }
    return false;
  }

  std::size_t n_, np_;
  std::vector<Lanes> y_, p_;
  std::vector<std::uint32_t> columns_;  // those seeded
  std::vector<detail::DependencyTracer> traced_y_, traced_p_;
};

// An objective term may differentiate itself (config expressions do, by reverse mode):
//   terminal     T gradient(const T* y, const T* p, T* grad_y, T* grad_p) const
//   running      T gradient(T t, const T* y, const T* p, T* grad_y, T* grad_p) const
//   observation  T gradient(std::size_t k, const T* y, const T* p, T* grad_y, T* grad_p) const
// returning the value and overwriting the gradients (grad_p may be null). These call it
// when it exists, and fall back on Dual chunks.
template <class Term, class V>
V terminal_gradient(const Term& g, ScalarGradient<V>& dual, const V* y, const V* p, V* grad_y,
                    V* grad_p) {
  if constexpr (requires { g.gradient(y, p, grad_y, grad_p); })
    return g.gradient(y, p, grad_y, grad_p);
  else
    return dual([&](const auto* s, const auto* q) { return g(s, q); }, y, p, grad_y, grad_p);
}
template <class Term, class V>
V running_gradient(const Term& r, ScalarGradient<V>& dual, V t, const V* y, const V* p, V* grad_y,
                   V* grad_p) {
  if constexpr (requires { r.gradient(t, y, p, grad_y, grad_p); })
    return r.gradient(t, y, p, grad_y, grad_p);
  else
    return dual([&](const auto* s, const auto* q) {
      using D = std::remove_cvref_t<decltype(*s)>;
      return r(D(t), s, q);
    }, y, p, grad_y, grad_p);
}
template <class Term, class V>
V observation_gradient(const Term& l, ScalarGradient<V>& dual, std::size_t k, const V* y,
                       const V* p, V* grad_y, V* grad_p) {
  if constexpr (requires { l.gradient(k, y, p, grad_y, grad_p); })
    return l.gradient(k, y, p, grad_y, grad_p);
  else
    return dual([&](const auto* s, const auto* q) { return l(k, s, q); }, y, p, grad_y, grad_p);
}

// (dy0/dp)ᵀ lambda_0 for an initial term y0(p) of n states: dJ/dp's path through y0.
template <class Initial, class V>
std::vector<V> through_initial_state(const Initial& initial, std::size_t n, const V* lambda,
                                     const std::vector<V>& p) {
  ScalarGradient<V> dual(0, p.size());
  std::vector<V> grad(p.size()), none;
  dual(
      [&](const auto*, const auto* q) {
        using D = std::remove_cvref_t<decltype(*q)>;
        std::vector<D> y(n);
        initial(q, y.data());
        D sum(0);
        for (std::size_t i = 0; i < n; ++i) sum += lambda[i] * y[i];
        return sum;
      },
      none.data(), p.data(), none.data(), grad.data());
  return grad;
}

// sum += x by Neumaier's compensated summation (the total is sum + compensation).
template <class V>
BACKSWEEP_HOST_DEVICE void compensated_add(V& sum, V& compensation, const V& x) {
  using std::abs;
  const V t = sum + x;
  if (abs(sum) >= abs(x)) compensation += (sum - t) + x;
  else compensation += (x - t) + sum;
  sum = t;
}

// Neumaier's compensated summation, component-wise: long sums of small parameter
// contributions keep their accuracy.
template <class V, Algebra A = CpuAlgebra>
class CompensatedSum {
 public:
  explicit CompensatedSum(std::size_t n) : sum_(n, V(0)), compensation_(n, V(0)) {}

  // sum += x, component-wise (n: the size, passed so that it can be a constant).
  BACKSWEEP_INLINE void add(std::size_t n, const V* x) {
    A::for_each(n, Add{sum_.data(), compensation_.data(), x});
  }
  void add(std::size_t i, const V& x) { compensated_add(sum_[i], compensation_[i], x); }
  V total(std::size_t i) const { return sum_[i] + compensation_[i]; }
  std::size_t size() const { return sum_.size(); }

  // Kernel functors are public: CUDA names a kernel's functor type outside the class.
  struct Add {
    V *sum, *compensation;
    const V* x;
    BACKSWEEP_HOST_DEVICE void operator()(std::size_t i) const {
      compensated_add(sum[i], compensation[i], x[i]);
    }
  };

 private:
  typename A::template vector<V> sum_, compensation_;
};

}  // namespace backsweep::detail
