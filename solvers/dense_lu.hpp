#pragma once
// DenseLU: an n x n LU factorization with partial pivoting (pivots chosen on the values),
// on any scalar S, so that implicit steps solve on double and differentiate through the
// solve on Dual. Solves take right-hand sides of S, or of Dual<S> with a matrix of S: the
// lanes then solve with the same factors. Meant for the Newton matrices of small and
// medium systems (O(n^3) to factor, O(n^2) a solve).
#include <cmath>
#include <cstddef>
#include <utility>
#include <vector>

#include "models/dual.hpp"

namespace backsweep {

template <class S>
class DenseLU {
 public:
  // The n x n row-major matrix to factor, in the factorization's own storage (reused from
  // one factorization to the next: no allocation per step): fill it, then factor().
  S* matrix(std::size_t n) {
    n_ = n;
    lu_.resize(n * n);
    return lu_.data();
  }
  // Factors the matrix in place. False when a pivot is zero or not finite: the matrix is
  // singular to working precision.
  bool factor() {
    const std::size_t n = n_;
    pivot_.resize(n);
    for (std::size_t k = 0; k < n; ++k) {
      std::size_t best = k;
      for (std::size_t i = k + 1; i < n; ++i)
        if (std::abs(value_of(at(i, k))) > std::abs(value_of(at(best, k)))) best = i;
      pivot_[k] = best;
      if (best != k)
        for (std::size_t j = 0; j < n; ++j) std::swap(at(k, j), at(best, j));
      const double diagonal = value_of(at(k, k));
      if (diagonal == 0.0 || !std::isfinite(diagonal)) return false;
      for (std::size_t i = k + 1; i < n; ++i) {
        at(i, k) = at(i, k) / at(k, k);
        const S l = at(i, k);
        for (std::size_t j = k + 1; j < n; ++j) at(i, j) -= l * at(k, j);
      }
    }
    return true;
  }

  // b := A^{-1} b.
  template <class U>
  void solve(U* b) const {
    for (std::size_t k = 0; k < n_; ++k) std::swap(b[k], b[pivot_[k]]);
    for (std::size_t i = 0; i < n_; ++i)
      for (std::size_t j = 0; j < i; ++j) b[i] -= at(i, j) * b[j];
    for (std::size_t i = n_; i-- > 0;) {
      for (std::size_t j = i + 1; j < n_; ++j) b[i] -= at(i, j) * b[j];
      b[i] = b[i] / at(i, i);
    }
  }

  // b := A^{-T} b.
  template <class U>
  void solve_transposed(U* b) const {
    for (std::size_t i = 0; i < n_; ++i) {  // Uᵀ z = b
      for (std::size_t j = 0; j < i; ++j) b[i] -= at(j, i) * b[j];
      b[i] = b[i] / at(i, i);
    }
    for (std::size_t i = n_; i-- > 0;)  // Lᵀ w = z
      for (std::size_t j = i + 1; j < n_; ++j) b[i] -= at(j, i) * b[j];
    for (std::size_t k = n_; k-- > 0;) std::swap(b[k], b[pivot_[k]]);
  }

  std::size_t size() const { return n_; }

 private:
  S& at(std::size_t i, std::size_t j) { return lu_[i * n_ + j]; }
  const S& at(std::size_t i, std::size_t j) const { return lu_[i * n_ + j]; }

  std::vector<S> lu_;
  std::vector<std::size_t> pivot_;
  std::size_t n_ = 0;
};

}  // namespace backsweep
