#pragma once
// Exact vector-Jacobian products of a Model's right-hand side, lambdaᵀ df/dy and
// lambdaᵀ df/dp, at a cost close to that of f itself whenever the model allows it. The
// way is chosen once, per model, in this order:
//   hand_written  the model's own `vjp` (V = double);
//   reverse_mode  a taped reverse pass (models with `Tape<V>` and a taped `vjp`, such as
//                 ExpressionModel): one forward run keeping intermediates, one reverse run;
//   sparse        a sparse Jacobian from a few Dual sweeps over coloured columns (Curtis,
//                 Powell and Reid), then Jᵀλ in O(nnz): for models that declare their
//                 sparsity pattern (`sparsity()`), and for models that ask for it to be
//                 detected (`static constexpr bool detect_sparsity = true;`) at the first
//                 VJP. Detection is not automatic: a detected pattern follows the branches
//                 taken at that point, and a model whose branches change which inputs an
//                 output reads would get a silently wrong gradient;
//   dense         forward-mode Dual numbers, kDerivativeLanes columns of [y, p] per model
//                 call: ceil((n + n_p) / 8) calls, fine for small models only.
// Derivatives::method() says which; the gradient's diagnostics report it.
//
// V is the scalar the derivatives are taken in: double normally, or a Dual when the
// derivatives themselves must be differentiated (Hessian-vector products).
#include <algorithm>
#include <array>
#include <cstddef>
#include <optional>
#include <type_traits>
#include <vector>

#include "models/dual.hpp"
#include "models/model.hpp"
#include "models/sparse_jacobian.hpp"
#include "models/sparsity.hpp"

namespace backsweep {

inline constexpr int kDerivativeLanes = 8;

enum class VjpMethod { hand_written, reverse_mode, sparse, dense };

constexpr const char* to_string(VjpMethod method) {
  switch (method) {
    case VjpMethod::hand_written: return "hand_written";
    case VjpMethod::reverse_mode: return "reverse_mode";
    case VjpMethod::sparse: return "sparse";
    case VjpMethod::dense: return "dense";
  }
  return "?";
}

template <Model M, class V = double>
class Derivatives {
 public:
  using LaneN = Dual<V, kDerivativeLanes>;

  BACKSWEEP_HOST_DEVICE_TEMPLATE explicit Derivatives(const M& model)
      : model_(model), n_(backsweep::state_size(model)), np_(backsweep::param_size(model)) {}
  Derivatives(const M&&) = delete;  // refers to the model: it must outlive this

  static constexpr VjpMethod method() { return choose(); }

  std::size_t state_size() const { return n_; }
  std::size_t param_size() const { return np_; }

  // vjp_y = lambdaᵀ df/dy and vjp_p = lambdaᵀ df/dp (overwritten; vjp_p may be null).
  BACKSWEEP_HOST_DEVICE_TEMPLATE
  BACKSWEEP_INLINE void vjp(V t, const V* y, const V* p, const V* lambda, V* vjp_y, V* vjp_p) {
    if constexpr (kHand) {
      if (vjp_p) return model_.vjp(t, y, p, lambda, vjp_y, vjp_p);
      return model_.vjp(t, y, p, lambda, vjp_y, room(no_p_, np_));
    } else if constexpr (kTaped) {
      model_.vjp(tape_, t, y, p, lambda, vjp_y, vjp_p);
    } else if constexpr (kCanBeSparse) {
      if (!sparse_) sparse_.emplace(model_, pattern(t, y, p));
      sparse_->vjp(t, y, p, lambda, vjp_y, vjp_p);
    } else {
      derived_vjp(t, y, p, lambda, vjp_y, vjp_p);
    }
  }

  // df/dy, row-major n x n: the model's own Jacobian where it has one (V = double), else
  // from Dual lanes. Implicit methods build their Newton and stage matrices from it.
  void jacobian(V t, const V* y, const V* p, V* dfdy) {
    if constexpr (HasHandJacobian<M> && std::is_same_v<V, double>) {
      model_.jacobian(t, y, p, dfdy, room(no_p_, n_ * np_));
    } else {
      derived_jacobian(t, y, p, dfdy, nullptr);
    }
  }

  // The Dual-derived VJP and dense Jacobian, whatever the model supplies: the reference
  // the derivative checker compares hand-written derivatives with.
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

  // Row-major: dfdy is n x n, dfdp is n x n_param (either may be null).
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
  static constexpr bool kHand = HasHandVjp<M> && std::is_same_v<V, double>;
  static constexpr bool kTaped = HasTapedVjp<M, V>;
  static constexpr bool kCanBeSparse = HasSparsityPattern<M> || AsksForSparsityDetection<M>;

  static constexpr VjpMethod choose() {
    if constexpr (kHand) return VjpMethod::hand_written;
    else if constexpr (kTaped) return VjpMethod::reverse_mode;
    else if constexpr (kCanBeSparse) return VjpMethod::sparse;
    else return VjpMethod::dense;
  }

  // The declared pattern, or the one detected at this point (its values).
  SparsityPattern pattern(V t, const V* y, const V* p) const {
    std::vector<double> yv(n_), pv(np_);
    for (std::size_t i = 0; i < n_; ++i) yv[i] = value_of(y[i]);
    for (std::size_t j = 0; j < np_; ++j) pv[j] = value_of(p[j]);
    return sparsity_pattern(model_, value_of(t), yv.data(), pv.data());
  }

  // Evaluates f with lanes seeded on columns [first, first + lanes) of [y, p]. Lane
  // buffers that are vectors are sized on first use: a model differentiated another way
  // never pays for them.
  void evaluate_columns(V t, const V* y, const V* p, std::size_t first) {
    room(yn_, n_);
    room(pn_, np_);
    room(fn_, n_);
    for (std::size_t i = 0; i < n_; ++i) yn_[i] = LaneN(y[i]);
    for (std::size_t j = 0; j < np_; ++j) pn_[j] = LaneN(p[j]);
    for (int k = 0; k < kDerivativeLanes; ++k) {
      const std::size_t column = first + static_cast<std::size_t>(k);
      if (column < n_) yn_[column].d[k] = V(1);
      else if (column < n_ + np_) pn_[column - n_].d[k] = V(1);
    }
    model_(LaneN(t), yn_.data(), pn_.data(), fn_.data());
  }

  struct NoTape {};
  template <class Model_>
  static auto tape_type() {
    if constexpr (HasTapedVjp<Model_, V>) return typename Model_::template Tape<V>{};
    else return NoTape{};
  }

  // Buffers: arrays for small models of compile-time size in doubles (nothing on the
  // heap, so such a model's Derivatives is built inside a GPU thread too), else vectors
  // sized on first use.
  static constexpr bool kFixed = [] {
    if constexpr (HasStaticSizes<M>) return std::is_same_v<V, double> && M::n_state <= 16 && M::n_param <= 16;
    else return false;
  }();
  template <class U, std::size_t N>
  using Buffer = std::conditional_t<kFixed, std::array<U, N>, std::vector<U>>;
  static constexpr std::size_t kN = kFixed ? static_state_size<M> : 0;
  static constexpr std::size_t kNp = [] {
    if constexpr (kFixed) return std::size_t{M::n_param};
    else return std::size_t{0};
  }();
  // The buffer's data, grown to hold `count` values where it is a vector.
  BACKSWEEP_EXEC_CHECK_DISABLE
  template <class B>
  BACKSWEEP_HOST_DEVICE static auto* room(B& buffer, std::size_t count) {
    if constexpr (!kFixed)
      if (buffer.size() < count) buffer.resize(count);
    return buffer.data();
  }
  struct NoSparse {};

  const M& model_;
  std::size_t n_, np_;
  Buffer<LaneN, kN> yn_, fn_;
  Buffer<LaneN, kNp> pn_;
  std::conditional_t<kCanBeSparse, std::optional<SparseJacobian<M, V>>, NoSparse> sparse_;
  Buffer<V, kN * kNp + 1> no_p_;  // a hand-written vjp always writes vjp_p
  decltype(tape_type<M>()) tape_;
};

}  // namespace backsweep
