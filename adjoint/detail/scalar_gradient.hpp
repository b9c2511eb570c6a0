#pragma once
// Values and gradients of the scalar terms of an objective, and the compensated sum that
// accumulates the parameter gradient over many steps.
#include <algorithm>
#include <cstddef>
#include <vector>

#include "models/derivatives.hpp"
#include "solvers/algebra.hpp"

namespace backsweep::detail {

// Value and gradient of a scalar function of (y, p) by Dual numbers, a chunk of lanes
// at a time, with buffers sized once: the way for terms that do not differentiate
// themselves. f is called as f(y, p) with Dual arrays.
template <class V>
class ScalarGradient {
 public:
  using Lanes = Dual<V, kDerivativeLanes>;

  ScalarGradient(std::size_t n, std::size_t np) : n_(n), np_(np), y_(n), p_(np) {}

  // Returns f(y, p) and writes df/dy and df/dp (df/dp only when grad_p is given).
  template <class F>
  V operator()(F&& f, const V* y, const V* p, V* grad_y, V* grad_p) {
    const std::size_t columns = n_ + (grad_p ? np_ : 0);
    V value(0);
    for (std::size_t first = 0; first < std::max<std::size_t>(columns, 1);
         first += kDerivativeLanes) {
      for (std::size_t i = 0; i < n_; ++i) y_[i] = Lanes(y[i]);
      for (std::size_t j = 0; j < np_; ++j) p_[j] = Lanes(p[j]);
      for (int k = 0; k < kDerivativeLanes; ++k) {
        const std::size_t column = first + std::size_t(k);
        if (column < n_) y_[column].d[k] = V(1);
        else if (column < columns) p_[column - n_].d[k] = V(1);
      }
      const Lanes result = f(static_cast<const Lanes*>(y_.data()), static_cast<const Lanes*>(p_.data()));
      value = result.v;
      for (int k = 0; k < kDerivativeLanes; ++k) {
        const std::size_t column = first + std::size_t(k);
        if (column < n_) grad_y[column] = result.d[k];
        else if (column < columns) grad_p[column - n_] = result.d[k];
      }
    }
    return value;
  }

 private:
  std::size_t n_, np_;
  std::vector<Lanes> y_, p_;
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
  void add(std::size_t i, const V& x) { accumulate(sum_[i], compensation_[i], x); }
  V total(std::size_t i) const { return sum_[i] + compensation_[i]; }
  std::size_t size() const { return sum_.size(); }

 private:
  BACKSWEEP_HOST_DEVICE static void accumulate(V& sum, V& compensation, const V& x) {
    using std::abs;
    const V t = sum + x;
    if (abs(sum) >= abs(x)) compensation += (sum - t) + x;
    else compensation += (x - t) + sum;
    sum = t;
  }
  struct Add {
    V *sum, *compensation;
    const V* x;
    BACKSWEEP_HOST_DEVICE void operator()(std::size_t i) const {
      accumulate(sum[i], compensation[i], x[i]);
    }
  };
  typename A::template vector<V> sum_, compensation_;
};

}  // namespace backsweep::detail
