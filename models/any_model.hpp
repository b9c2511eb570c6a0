#pragma once
// AnyModel<As...>: whichever of several model types, as one model type, so the engine is
// compiled once for all of them instead of once each. An alternative is a model, or a
// shared_ptr to one that is costly to copy (a model defined by equations).
//
// Each right-hand side dispatches once to the held model's own code (once for a whole
// field on a grid), and Derivatives<AnyModel> holds the held model's own Derivatives, so
// values, VJPs, Jacobians, sparsity patterns and the reported way of taking derivatives
// are bitwise those of the held model's type. What a model may declare (its pattern, a
// constant Jacobian) AnyModel declares when every alternative (the pattern) or any
// alternative (a constant Jacobian) does, so the engine's choices stay as they were.
#include <cstddef>
#include <memory>
#include <type_traits>
#include <utility>
#include <variant>

#include "models/derivatives.hpp"
#include "models/grid_layout.hpp"
#include "models/sparsity.hpp"

namespace backsweep::models {

namespace detail {
template <class A>
struct Held {
  using type = A;
  static const A& of(const A& model) { return model; }
};
template <class M>
struct Held<std::shared_ptr<const M>> {
  using type = M;
  static const M& of(const std::shared_ptr<const M>& model) { return *model; }
};
template <class A>
using held_t = typename Held<A>::type;

template <class M>
concept DeclaresConstantJacobian = requires(const M& model) {
  { model.jacobian_constant() } -> std::convertible_to<bool>;
};
}  // namespace detail

template <class... As>
class AnyModel {
 public:
  using Alternatives = std::variant<As...>;

  template <class A>
  explicit AnyModel(A model)
      : model_(std::move(model)),
        n_(visit([](const auto& m) { return backsweep::state_size(m); })),
        np_(visit([](const auto& m) { return backsweep::param_size(m); })) {}

  // f(model) with the held model.
  template <class F>
  decltype(auto) visit(F&& f) const {
    return std::visit([&](const auto& a) -> decltype(auto) { return f(detail::Held<std::remove_cvref_t<decltype(a)>>::of(a)); },
                      model_);
  }

  std::size_t state_size() const { return n_; }
  std::size_t param_size() const { return np_; }
  const Grid* grid() const { return visit([](const auto& m) { return grid_of(m); }); }

  template <class T>
  void operator()(T t, const T* y, const T* p, T* dydt) const {
    visit([&](const auto& m) { m(t, y, p, dydt); });
  }

  SparsityPattern sparsity() const
    requires(HasSparsityPattern<detail::held_t<As>> && ...)
  {
    return visit([](const auto& m) { return m.sparsity(); });
  }
  bool jacobian_constant() const
    requires(detail::DeclaresConstantJacobian<detail::held_t<As>> || ...)
  {
    return visit([](const auto& m) {
      if constexpr (detail::DeclaresConstantJacobian<std::remove_cvref_t<decltype(m)>>) return bool(m.jacobian_constant());
      else return false;
    });
  }

 private:
  Alternatives model_;
  std::size_t n_, np_;  // the held model's, asked at every step
};

// f(the held model), as its own type. HeldProbe asks whether a model holds others.
struct HeldProbe {
  template <class H>
  void operator()(const H&) const {}
};
template <class... As, class F>
decltype(auto) with_held(const AnyModel<As...>& model, F&& f) {
  return model.visit(f);
}

}  // namespace backsweep::models

namespace backsweep {

// The held model's own Derivatives, whichever way it takes them. Its members are defined
// outside the class (not inline), so that a translation unit that declares them `extern`
// for a model (apps/engine_of/model_kind.hpp) compiles none of the held models' derivatives.
template <class... As, class V>
class Derivatives<models::AnyModel<As...>, V> {
 public:
  using Any = models::AnyModel<As...>;

  explicit Derivatives(const Any& model);
  Derivatives(const Any&&) = delete;  // refers to the model: it must outlive this

  VjpMethod method() const;
  std::size_t state_size() const;
  std::size_t param_size() const;

  void vjp(V t, const V* y, const V* p, const V* lambda, V* vjp_y, V* vjp_p);
  void jacobian(V t, const V* y, const V* p, V* dfdy);
  void derived_vjp(V t, const V* y, const V* p, const V* lambda, V* vjp_y, V* vjp_p);
  void derived_jacobian(V t, const V* y, const V* p, V* dfdy, V* dfdp);

 private:
  using Each = std::variant<Derivatives<models::detail::held_t<As>, V>...>;
  Each of_;
};

template <class... As, class V>
Derivatives<models::AnyModel<As...>, V>::Derivatives(const Any& model)
    : of_(model.visit([](const auto& m) {
        return Each(std::in_place_type<Derivatives<std::remove_cvref_t<decltype(m)>, V>>, m);
      })) {}

template <class... As, class V>
VjpMethod Derivatives<models::AnyModel<As...>, V>::method() const {
  return std::visit([](const auto& d) { return d.method(); }, of_);
}
template <class... As, class V>
std::size_t Derivatives<models::AnyModel<As...>, V>::state_size() const {
  return std::visit([](const auto& d) { return d.state_size(); }, of_);
}
template <class... As, class V>
std::size_t Derivatives<models::AnyModel<As...>, V>::param_size() const {
  return std::visit([](const auto& d) { return d.param_size(); }, of_);
}

template <class... As, class V>
void Derivatives<models::AnyModel<As...>, V>::vjp(V t, const V* y, const V* p, const V* lambda, V* vjp_y,
                                                  V* vjp_p) {
  std::visit([&](auto& d) { d.vjp(t, y, p, lambda, vjp_y, vjp_p); }, of_);
}
template <class... As, class V>
void Derivatives<models::AnyModel<As...>, V>::jacobian(V t, const V* y, const V* p, V* dfdy) {
  std::visit([&](auto& d) { d.jacobian(t, y, p, dfdy); }, of_);
}
template <class... As, class V>
void Derivatives<models::AnyModel<As...>, V>::derived_vjp(V t, const V* y, const V* p, const V* lambda, V* vjp_y,
                                                          V* vjp_p) {
  std::visit([&](auto& d) { d.derived_vjp(t, y, p, lambda, vjp_y, vjp_p); }, of_);
}
template <class... As, class V>
void Derivatives<models::AnyModel<As...>, V>::derived_jacobian(V t, const V* y, const V* p, V* dfdy, V* dfdp) {
  std::visit([&](auto& d) { d.derived_jacobian(t, y, p, dfdy, dfdp); }, of_);
}

}  // namespace backsweep
