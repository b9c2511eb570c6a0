#pragma once
// The sparse Jacobian df/d[y, p] of a Model from a few Dual sweeps (Curtis, Powell and
// Reid): the columns are coloured so that columns of one colour share no row, each Dual
// lane is seeded with the sum of one colour's unit vectors, and every nonzero is read
// back from the lane of its column's colour in its row. With c colours this is ⌈c / 8⌉
// model calls on Dual<V, L> with L ≤ 8 chosen to fit c (no idle lanes), each lane costing
// about one scalar evaluation of f, plus O(nnz) to read the nonzeros and form lambdaᵀJ;
// the dense Derivatives::derived_vjp makes ⌈(n + n_param) / 8⌉ calls on 8 lanes, O(n^2)
// for a stencil model. bench/sparse_vjp.bench.cpp measures both.
//
//   SparseJacobian jacobian(model);                      // model declares sparsity()
//   SparseJacobian jacobian(model, detect_sparsity(model, t0, y0, p));
//   jacobian.vjp(t, y, p, lambda, vjp_y, vjp_p);
//
// V is the scalar the Jacobian is taken in (double, or a Dual for second derivatives),
// as in Derivatives.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "models/dual.hpp"
#include "models/grid_layout.hpp"
#include "models/model.hpp"
#include "models/sparsity.hpp"

namespace backsweep {

// Which columns of df/d[y, p] an evaluation computes.
enum class JacobianColumns {
  all,     // df/dy and df/dp
  states,  // df/dy only: skips the sweeps of colours only parameter columns use
};

template <Model M, class V = double>
class SparseJacobian {
 public:
  static constexpr int kMaxLanes = 8;

  // Colours the pattern's columns and prepares the sweeps. Throws std::invalid_argument
  // when the pattern is not valid or not n x (n + n_param) for this model.
  SparseJacobian(const M& model, SparsityPattern pattern)
      : model_(model),
        n_(backsweep::state_size(model)),
        np_(backsweep::param_size(model)),
        pattern_(checked(std::move(pattern), n_, np_)),
        colouring_(colour_columns(pattern_, grid_of(model))),
        values_(pattern_.nnz()),
        vjp_params_(np_) {}
  // The pattern the model declares.
  explicit SparseJacobian(const M& model)
    requires HasSparsityPattern<M>
      : SparseJacobian(model, model.sparsity()) {}
  SparseJacobian(const M&&, SparsityPattern) = delete;  // refers to the model: it must outlive this
  SparseJacobian(const M&&) = delete;

  // Computes the nonzeros at (t, y, p) into values(). With JacobianColumns::states, the
  // values in parameter columns are left unspecified.
  void evaluate(V t, const V* y, const V* p, JacobianColumns columns = JacobianColumns::all) {
    sweep(t, y, p, columns);
  }

  // vjp_y = lambdaᵀ df/dy and vjp_p = lambdaᵀ df/dp (overwritten; vjp_p may be null, which
  // skips the parameter colours). Evaluates the Jacobian as evaluate() does (values()
  // holds it after; only its state columns when vjp_p is null) and accumulates the
  // product in the same pass over the nonzeros: O(nnz) beyond the sweeps.
  void vjp(V t, const V* y, const V* p, const V* lambda, V* vjp_y, V* vjp_p) {
    for (std::size_t j = 0; j < n_; ++j) vjp_y[j] = V(0);
    for (V& x : vjp_params_) x = V(0);
    sweep(t, y, p, vjp_p ? JacobianColumns::all : JacobianColumns::states, lambda, vjp_y);
    if (vjp_p)
      for (std::size_t j = 0; j < np_; ++j) vjp_p[j] = vjp_params_[j];
  }

  const SparsityPattern& pattern() const { return pattern_; }
  const ColumnColouring& colouring() const { return colouring_; }
  // The nonzeros of the last evaluation, in the pattern's CSR order.
  std::span<const V> values() const { return values_; }
  // Calls of the model's right-hand side made so far (one per sweep of up to 8 colours).
  std::size_t model_evaluations() const { return model_evaluations_; }

 private:
  template <int L>
  struct Lanes {
    std::vector<Dual<V, L>> y, p, f;
    std::size_t seeded_for = SIZE_MAX;  // the first colour of the pass y's and p's lanes hold
  };
  template <class Sequence>
  struct LaneBuffers;
  template <int... L>
  struct LaneBuffers<std::integer_sequence<int, L...>> {
    using type = std::tuple<Lanes<L + 1>...>;
  };

  static SparsityPattern checked(SparsityPattern pattern, std::size_t n, std::size_t np) {
    std::string error;
    if (pattern.rows != n || pattern.columns != n + np)
      throw std::invalid_argument(
          "sparse Jacobian: the pattern is " + std::to_string(pattern.rows) + " x " +
          std::to_string(pattern.columns) + " but the model's Jacobian is " + std::to_string(n) +
          " x " + std::to_string(n + np));
    if (!pattern.is_valid(&error)) throw std::invalid_argument("sparse Jacobian: " + error);
    return pattern;
  }

  // Sweeps over the colours `columns` needs, up to 8 colours a model call; when lambda
  // is given also adds lambdaᵀ J into vjp_y and vjp_params_. Defined outside the class
  // (not inline): a translation unit that declares the class `extern` for a model
  // (apps/engine_of/model_kind.hpp) compiles none of its Dual passes.
  void sweep(V t, const V* y, const V* p, JacobianColumns columns, const V* lambda = nullptr,
             V* vjp_y = nullptr);

  // One model call with lane k seeded on the columns of colour first + k.
  template <int L>
  void pass(V t, const V* y, const V* p, std::size_t first, bool states_only, const V* lambda,
            V* vjp_y) {
    using D = Dual<V, L>;
    Lanes<L>& lanes = std::get<L - 1>(buffers_);
    // Sized on a buffer's first use only: a model whose colours need one lane count
    // never holds buffers for the others (at n = 10^6 each is tens of MB).
    if (lanes.y.size() != n_) {
      lanes.y.resize(n_);
      lanes.p.resize(np_);
      lanes.f.resize(n_);
    }
    // Raw pointers in locals: the loops below store doubles, which the compiler cannot
    // always prove leave the members' pointers alone.
    D* const dy = lanes.y.data();
    D* const dp = lanes.p.data();
    const std::uint32_t* const colour_of = colouring_.colour_of.data();
    // Unsigned wrap-around: colour - first < L exactly when the colour is in this pass.
    const auto lane_of = [=](std::size_t column) -> std::size_t { return colour_of[column] - first; };
    // The seeds depend on the pass only, and the model cannot change its inputs, so
    // they are written when the buffer last served another pass (never when all
    // colours fit one pass), and a call only copies the values in.
    if (lanes.seeded_for != first) {
      for (std::size_t j = 0; j < n_ + np_; ++j) {
        D& x = j < n_ ? dy[j] : dp[j - n_];
        x = D();
        if (const std::size_t k = lane_of(j); k < std::size_t{L}) x.d[k] = V(1);
      }
      lanes.seeded_for = first;
    }
    for (std::size_t j = 0; j < n_; ++j) dy[j].v = y[j];
    for (std::size_t j = 0; j < np_; ++j) dp[j].v = p[j];
    model_(D(t), dy, dp, lanes.f.data());
    ++model_evaluations_;

    // Each nonzero is its row's tangent in the lane of its column's colour. Columns are
    // sorted, so a row's parameter columns come after its state columns.
    const D* const f = lanes.f.data();
    const std::uint32_t* const column_index = pattern_.column_index.data();
    const std::size_t* const row_start = pattern_.row_start.data();
    V* const values = values_.data();
    V* const vjp_params = vjp_params_.data();
    const std::uint32_t n = static_cast<std::uint32_t>(n_);
    const auto extract = [&]<bool Product, bool StatesOnly>() {
      for (std::size_t i = 0; i < n_; ++i) {
        const V* const tangent = f[i].d;
        V weight{};
        if constexpr (Product) weight = lambda[i];
        std::size_t nz = row_start[i];
        const std::size_t end = row_start[i + 1];
        for (; nz < end && column_index[nz] < n; ++nz) {
          const std::uint32_t column = column_index[nz];
          if (const std::size_t k = lane_of(column); k < std::size_t{L}) {
            values[nz] = tangent[k];
            if constexpr (Product) vjp_y[column] += weight * tangent[k];
          }
        }
        if constexpr (!StatesOnly) {
          for (; nz < end; ++nz) {
            const std::uint32_t column = column_index[nz];
            if (const std::size_t k = lane_of(column); k < std::size_t{L}) {
              values[nz] = tangent[k];
              if constexpr (Product) vjp_params[column - n] += weight * tangent[k];
            }
          }
        }
      }
    };
    if (lambda) {
      if (states_only) extract.template operator()<true, true>();
      else extract.template operator()<true, false>();
    } else {
      if (states_only) extract.template operator()<false, true>();
      else extract.template operator()<false, false>();
    }
  }

  const M& model_;
  std::size_t n_, np_;
  SparsityPattern pattern_;
  ColumnColouring colouring_;
  std::vector<V> values_;
  std::vector<V> vjp_params_;  // lambdaᵀ df/dp, also when the caller wants none
  typename LaneBuffers<std::make_integer_sequence<int, kMaxLanes>>::type buffers_;
  std::size_t model_evaluations_ = 0;
};

template <Model M, class V>
void SparseJacobian<M, V>::sweep(V t, const V* y, const V* p, JacobianColumns columns, const V* lambda,
                                 V* vjp_y) {
  const bool states_only = columns == JacobianColumns::states;
  const std::size_t colours = states_only ? colouring_.state_colours : colouring_.colours;
  for (std::size_t first = 0; first < colours; first += kMaxLanes) {
    switch (std::min<std::size_t>(kMaxLanes, colours - first)) {
      case 1: pass<1>(t, y, p, first, states_only, lambda, vjp_y); break;
      case 2: pass<2>(t, y, p, first, states_only, lambda, vjp_y); break;
      case 3: pass<3>(t, y, p, first, states_only, lambda, vjp_y); break;
      case 4: pass<4>(t, y, p, first, states_only, lambda, vjp_y); break;
      case 5: pass<5>(t, y, p, first, states_only, lambda, vjp_y); break;
      case 6: pass<6>(t, y, p, first, states_only, lambda, vjp_y); break;
      case 7: pass<7>(t, y, p, first, states_only, lambda, vjp_y); break;
      default: pass<8>(t, y, p, first, states_only, lambda, vjp_y); break;
    }
  }
}

}  // namespace backsweep
