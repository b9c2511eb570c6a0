#pragma once
// Exact first derivatives of a Model's right-hand side: Jacobian-vector products,
// vector-Jacobian products and dense Jacobians. They come from the model's hand-written
// `jvp` / `vjp` / `jacobian` when it has them, and otherwise from forward-mode Dual
// numbers pushed through the model, a chunk of `kDerivativeLanes` columns at a time.
//
// V is the scalar the derivatives are taken in: double normally, or a Dual when the
// derivatives themselves must be differentiated (Hessian-vector products). Hand-written
// derivatives are only used for V = double.
#include <algorithm>
#include <cstddef>
#include <vector>

#include "models/dual.hpp"
#include "models/model.hpp"

namespace backsweep {

inline constexpr int kDerivativeLanes = 8;

template <Model M, class V = double>
class Derivatives {
 public:
  using Lane1 = Dual<V, 1>;
  using LaneN = Dual<V, kDerivativeLanes>;

  explicit Derivatives(const M& model)
      : model_(model),
        n_(backsweep::state_size(model)),
        np_(backsweep::param_size(model)),
        y1_(n_), p1_(np_), f1_(n_),
        yn_(n_), pn_(np_), fn_(n_) {}

  Derivatives(const M&&) = delete;  // refers to the model: it must outlive this

  std::size_t state_size() const { return n_; }
  std::size_t param_size() const { return np_; }

  // out = df/dy · dy + df/dp · dp. `dp` may be null (no parameter direction).
  void jvp(V t, const V* y, const V* p, const V* dy, const V* dp, V* out) {
    if constexpr (HasHandJvp<M> && std::is_same_v<V, double>) {
      if (dp) return model_.jvp(t, y, p, dy, dp, out);
    }
    derived_jvp(t, y, p, dy, dp, out);
  }

  // vjp_y = lambdaᵀ df/dy and vjp_p = lambdaᵀ df/dp (overwritten; vjp_p may be null).
  void vjp(V t, const V* y, const V* p, const V* lambda, V* vjp_y, V* vjp_p) {
    if constexpr (HasHandVjp<M> && std::is_same_v<V, double>) {
      if (vjp_p) return model_.vjp(t, y, p, lambda, vjp_y, vjp_p);
    }
    derived_vjp(t, y, p, lambda, vjp_y, vjp_p);
  }

  // Row-major dense Jacobians: dfdy is n x n, dfdp is n x n_param (either may be null).
  void jacobian(V t, const V* y, const V* p, V* dfdy, V* dfdp) {
    if constexpr (HasHandJacobian<M> && std::is_same_v<V, double>) {
      if (dfdy && dfdp) return model_.jacobian(t, y, p, dfdy, dfdp);
    }
    derived_jacobian(t, y, p, dfdy, dfdp);
  }

  // The Dual-derived versions, whatever the model supplies (the derivative checker's
  // reference).
  void derived_jvp(V t, const V* y, const V* p, const V* dy, const V* dp, V* out) {
    for (std::size_t i = 0; i < n_; ++i) {
      y1_[i] = Lane1(y[i]);
      y1_[i].d[0] = dy[i];
    }
    for (std::size_t j = 0; j < np_; ++j) {
      p1_[j] = Lane1(p[j]);
      p1_[j].d[0] = dp ? dp[j] : V(0);
    }
    model_(Lane1(t), y1_.data(), p1_.data(), f1_.data());
    for (std::size_t i = 0; i < n_; ++i) out[i] = f1_[i].d[0];
  }

  void derived_vjp(V t, const V* y, const V* p, const V* lambda, V* vjp_y, V* vjp_p) {
    const std::size_t columns = n_ + (vjp_p ? np_ : 0);
    for (std::size_t first = 0; first < columns; first += kDerivativeLanes) {
      evaluate_columns(t, y, p, first);
      const std::size_t width = std::min<std::size_t>(kDerivativeLanes, columns - first);
      for (std::size_t k = 0; k < width; ++k) {
        V sum(0);
        for (std::size_t i = 0; i < n_; ++i) sum += lambda[i] * fn_[i].d[k];
        const std::size_t column = first + k;
        if (column < n_) vjp_y[column] = sum;
        else vjp_p[column - n_] = sum;
      }
    }
  }

  void derived_jacobian(V t, const V* y, const V* p, V* dfdy, V* dfdp) {
    const std::size_t columns = n_ + np_;
    for (std::size_t first = 0; first < columns; first += kDerivativeLanes) {
      evaluate_columns(t, y, p, first);
      const std::size_t width = std::min<std::size_t>(kDerivativeLanes, columns - first);
      for (std::size_t k = 0; k < width; ++k) {
        const std::size_t column = first + k;
        for (std::size_t i = 0; i < n_; ++i) {
          if (column < n_) {
            if (dfdy) dfdy[i * n_ + column] = fn_[i].d[k];
          } else if (dfdp) {
            dfdp[i * np_ + (column - n_)] = fn_[i].d[k];
          }
        }
      }
    }
  }

 private:
  // Evaluates f with lanes seeded on columns [first, first + lanes) of [y, p].
  void evaluate_columns(V t, const V* y, const V* p, std::size_t first) {
    for (std::size_t i = 0; i < n_; ++i) yn_[i] = LaneN(y[i]);
    for (std::size_t j = 0; j < np_; ++j) pn_[j] = LaneN(p[j]);
    for (int k = 0; k < kDerivativeLanes; ++k) {
      const std::size_t column = first + static_cast<std::size_t>(k);
      if (column < n_) yn_[column].d[k] = V(1);
      else if (column < n_ + np_) pn_[column - n_].d[k] = V(1);
    }
    model_(LaneN(t), yn_.data(), pn_.data(), fn_.data());
  }

  const M& model_;
  std::size_t n_, np_;
  std::vector<Lane1> y1_, p1_, f1_;
  std::vector<LaneN> yn_, pn_, fn_;
};

}  // namespace backsweep
