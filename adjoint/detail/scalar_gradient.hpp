#pragma once
// Value and gradient of a scalar function of (y, p) by Dual numbers, a chunk of lanes
// at a time, with buffers sized once. f is called as f(y, p) with Dual arrays.
#include <algorithm>
#include <cstddef>
#include <vector>

#include "models/derivatives.hpp"

namespace backsweep::detail {

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

// Neumaier's compensated summation, component-wise: long sums of small parameter
// contributions keep their accuracy.
template <class V>
class CompensatedSum {
 public:
  explicit CompensatedSum(std::size_t n) : sum_(n, V(0)), compensation_(n, V(0)) {}
  void add(std::size_t i, const V& x) {
    using std::abs;
    const V t = sum_[i] + x;
    if (abs(sum_[i]) >= abs(x)) compensation_[i] += (sum_[i] - t) + x;
    else compensation_[i] += (x - t) + sum_[i];
    sum_[i] = t;
  }
  V total(std::size_t i) const { return sum_[i] + compensation_[i]; }
  std::size_t size() const { return sum_.size(); }

 private:
  std::vector<V> sum_, compensation_;
};

}  // namespace backsweep::detail
