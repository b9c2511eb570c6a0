#pragma once
// The Model concept: a right-hand side dy/dt = f(t, y, p) written once, templated on the
// scalar type, so the same definition gives values (double), exact tangents (Dual) and
// GPU threads. Sizes are compile-time (`static constexpr n_state, n_param`) or run-time
// (`state_size()`, `param_size()` member functions).
//
//   struct Decay {
//     static constexpr std::size_t n_state = 1, n_param = 1;
//     template <class T> void operator()(T t, const T* y, const T* p, T* dydt) const {
//       dydt[0] = -p[0] * y[0];
//     }
//   };
#include <concepts>
#include <cstddef>

#include "models/dual.hpp"

namespace backsweep {

template <class M>
concept HasStaticSizes = requires {
  { M::n_state } -> std::convertible_to<std::size_t>;
  { M::n_param } -> std::convertible_to<std::size_t>;
};

template <class M>
concept HasDynamicSizes = requires(const M& m) {
  { m.state_size() } -> std::convertible_to<std::size_t>;
  { m.param_size() } -> std::convertible_to<std::size_t>;
};

// Each requirement is its own concept so a compiler error names the one that failed.
template <class M>
concept DeclaresItsSizes = HasStaticSizes<M> || HasDynamicSizes<M>;

template <class M, class T>
concept RightHandSideFor = requires(const M& m, T t, const T* y, const T* p, T* dydt) {
  m(t, y, p, dydt);
};

// The right-hand side must be a template over the scalar: checked with a Dual.
template <class M>
concept Model = DeclaresItsSizes<M> && RightHandSideFor<M, double> &&
                RightHandSideFor<M, Dual<double, 1>>;

template <DeclaresItsSizes M>
constexpr std::size_t state_size(const M& m) {
  if constexpr (HasStaticSizes<M>) {
    return M::n_state;
  } else {
    return m.state_size();
  }
}

template <DeclaresItsSizes M>
constexpr std::size_t param_size(const M& m) {
  if constexpr (HasStaticSizes<M>) {
    return M::n_param;
  } else {
    return m.param_size();
  }
}

// The compile-time state size, or 0 when it is only known at run time. Loops bounded by
// it unroll for small static models.
template <class M>
inline constexpr std::size_t static_state_size = [] {
  if constexpr (HasStaticSizes<M>) return std::size_t{M::n_state};
  else return std::size_t{0};
}();

// Optional hand-written derivatives, used instead of Dual-derived ones when present.
// Jacobians are row-major: dfdy is n x n, dfdp is n x n_param.
template <class M>
concept HasHandVjp = requires(const M& m, double t, const double* y, const double* p,
                              const double* lambda, double* vjp_y, double* vjp_p) {
  m.vjp(t, y, p, lambda, vjp_y, vjp_p);
};
template <class M>
concept HasHandJacobian = requires(const M& m, double t, const double* y, const double* p,
                                   double* dfdy, double* dfdp) {
  m.jacobian(t, y, p, dfdy, dfdp);
};
// A model that differentiates itself in reverse mode: `Tape<V>` is the workspace of one
// taped evaluation (kept by the caller, so the model stays const and shareable), and
// vjp(tape, ...) computes lambdaᵀ df/dy and lambdaᵀ df/dp (vjp_p may be null) in one taped
// run and one reverse pass (ExpressionModel does this).
template <class M, class V>
concept HasTapedVjp = requires(const M& m, typename M::template Tape<V>& tape, V t, const V* y,
                               const V* p, const V* lambda, V* vjp_y, V* vjp_p) {
  m.vjp(tape, t, y, p, lambda, vjp_y, vjp_p);
};

}  // namespace backsweep
