#pragma once
// Objectives J = g(y_N, p) + integral r(t, y, p) dt + sum_k l_k(y(t_k), p), each term a
// functor templated on the scalar type (its derivatives come from Dual numbers, or from
// the term's own `gradient`, see adjoint/detail/scalar_gradient.hpp):
//   terminal     template <class T> T operator()(const T* y, const T* p) const
//   running      template <class T> T operator()(T t, const T* y, const T* p) const
//   observation  template <class T> T operator()(std::size_t k, const T* y, const T* p) const
//                (k indexes observation_times; the steps land on them exactly)
// and optionally an initial state that depends on the parameters:
//   initial      template <class T> void operator()(const T* p, T* y0) const
// (dJ/dp then includes the path through y0(p); dJ/dy0 is the sensitivity to a
// perturbation of that initial state).
// Leave a term as NoTerm to omit it: an omitted running cost costs nothing.
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "adjoint/detail/scalar_gradient.hpp"
#include "models/any_model.hpp"
#include "models/derivatives.hpp"
#include "models/grid_layout.hpp"
#include "models/model.hpp"
#include "models/sparsity.hpp"

namespace backsweep {

struct NoTerm {};

template <class Terminal = NoTerm, class Running = NoTerm, class Observation = NoTerm,
          class Initial = NoTerm>
struct Objective {
  Terminal terminal{};
  Running running{};
  Observation observation{};
  std::vector<double> observation_times{};
  Initial initial{};

  static constexpr bool has_terminal = !std::is_same_v<Terminal, NoTerm>;
  static constexpr bool has_running = !std::is_same_v<Running, NoTerm>;
  static constexpr bool has_observation = !std::is_same_v<Observation, NoTerm>;
  static constexpr bool has_initial = !std::is_same_v<Initial, NoTerm>;
};

namespace detail {
// The sizes of a model with one more state: compile-time when the model's are.
template <class M>
struct PlusOneState {
  const M* model;
  std::size_t state_size() const { return backsweep::state_size(*model) + 1; }
  std::size_t param_size() const { return backsweep::param_size(*model); }
  const Grid* grid() const { return grid_of(*model); }  // the extra state is not on it
};
template <HasStaticSizes M>
struct PlusOneState<M> {
  const M* model;
  static constexpr std::size_t n_state = M::n_state + 1, n_param = M::n_param;
};
}  // namespace detail

// The model with the running cost appended as one more state q' = r(t, y, p), q(t0) = 0,
// so the integral is integrated by the same method and its adjoint is exact.
template <Model M, class Running>
struct WithQuadrature : detail::PlusOneState<M> {
  const Running* running;

  WithQuadrature(const M* m, const Running* r) : detail::PlusOneState<M>{m}, running(r) {}

  template <class T>
  void operator()(T t, const T* y, const T* p, T* dydt) const {
    (*this->model)(t, y, p, dydt);
    dydt[backsweep::state_size(*this->model)] = (*running)(t, y, p);
  }

  // The model's pattern with the parameter columns moved past q, and a dense last row:
  // the running cost may read any state or parameter (nothing reads q).
  SparsityPattern sparsity() const
    requires HasSparsityPattern<M>
  {
    SparsityPattern pattern = this->model->sparsity();
    const std::size_t n = pattern.rows, np = pattern.columns - n;
    for (std::uint32_t& column : pattern.column_index) column += column >= n ? 1 : 0;
    for (std::size_t j = 0; j < n + 1 + np; ++j)
      if (j != n) pattern.column_index.push_back(static_cast<std::uint32_t>(j));
    pattern.row_start.push_back(pattern.column_index.size());
    pattern.rows = n + 1;
    pattern.columns = n + 1 + np;
    return pattern;
  }
};

// f(the system of the model held by an AnyModel, as its own type): see with_held.
template <class M, class Running, class F>
  requires requires(const M& model) { with_held(model, models::HeldProbe{}); }
decltype(auto) with_held(const WithQuadrature<M, Running>& system, F&& f) {
  return with_held(*system.model, [&](const auto& held) -> decltype(auto) {
    const WithQuadrature<std::remove_cvref_t<decltype(held)>, Running> own{&held, system.running};
    return f(own);
  });
}

// The VJP of a model with a quadrature: the model's own (whatever way it takes) plus the
// running cost's gradient weighted by the quadrature's adjoint. Nothing depends on q.
template <Model M, class Running, class V>
class Derivatives<WithQuadrature<M, Running>, V> {
 public:
  explicit Derivatives(const WithQuadrature<M, Running>& system)
      : system_(system), model_(*system.model), n_(backsweep::state_size(*system.model)),
        np_(backsweep::param_size(*system.model)), running_(n_, np_), grad_y_(n_), grad_p_(np_) {}

  VjpMethod method() const { return model_.method(); }

  void vjp(V t, const V* y, const V* p, const V* lambda, V* vjp_y, V* vjp_p) {
    model_.vjp(t, y, p, lambda, vjp_y, vjp_p);
    vjp_y[n_] = V(0);
    const V weight = lambda[n_];
    if (detail::is_exact_zero(weight)) return;
    detail::running_gradient(*system_.running, running_, t, y, p, grad_y_.data(),
                             vjp_p ? grad_p_.data() : static_cast<V*>(nullptr));
    for (std::size_t i = 0; i < n_; ++i) vjp_y[i] += weight * grad_y_[i];
    if (vjp_p)
      for (std::size_t j = 0; j < np_; ++j) vjp_p[j] += weight * grad_p_[j];
  }

  // (n + 1) x (n + 1): the model's Jacobian, the running cost's gradient as the last row,
  // and a zero last column (nothing depends on q).
  void jacobian(V t, const V* y, const V* p, V* dfdy) {
    const std::size_t width = n_ + 1;
    block_.resize(n_ * n_);
    model_.jacobian(t, y, p, block_.data());
    for (std::size_t i = 0; i < n_; ++i) {
      for (std::size_t j = 0; j < n_; ++j) dfdy[i * width + j] = block_[i * n_ + j];
      dfdy[i * width + n_] = V(0);
    }
    detail::running_gradient(*system_.running, running_, t, y, p, grad_y_.data(), static_cast<V*>(nullptr));
    for (std::size_t j = 0; j < n_; ++j) dfdy[n_ * width + j] = grad_y_[j];
    dfdy[n_ * width + n_] = V(0);
  }

 private:
  const WithQuadrature<M, Running>& system_;
  Derivatives<M, V> model_;
  std::size_t n_, np_;
  detail::ScalarGradient<V> running_;
  std::vector<V> grad_y_, grad_p_, block_;
};

}  // namespace backsweep
