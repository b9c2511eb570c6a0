#pragma once
// A Method names how a problem is stepped: a stepper family and its coefficients. Problems,
// configs and the CLI hold a Method; with_stepper() turns it into the stepper type that
// does the work. A new family (implicit Runge-Kutta, ...) is one more Family value, its
// methods in `all_methods`, and one more case in with_stepper.
#include <array>
#include <cstddef>
#include <utility>
#include <string_view>

#include "models/model.hpp"
#include "solvers/algebra.hpp"
#include "solvers/butcher_tableau.hpp"
#include "solvers/explicit_rk.hpp"
#include "solvers/stepper.hpp"

namespace backsweep {

struct Method {
  enum class Family { explicit_rk };
  Family family = Family::explicit_rk;
  const ButcherTableau* tableau = nullptr;  // explicit_rk

  // Any explicit Runge-Kutta tableau is a method: `GradientProblem{model, tableaux::rk4, ...}`.
  constexpr Method(const ButcherTableau& t) : tableau(&t) {}  // NOLINT: implicit on purpose
  Method(const ButcherTableau&&) = delete;  // it keeps a pointer: the tableau must outlive it

  constexpr std::string_view name() const { return tableau->name; }
  constexpr std::string_view description() const { return tableau->description; }
  constexpr StepperTraits traits() const {
    return {tableau->name, tableau->order, tableau->embedded_order, false};
  }
  constexpr bool adaptive() const { return traits().adaptive(); }
};

inline constexpr auto all_methods = []<std::size_t... I>(std::index_sequence<I...>) {
  return std::array<Method, sizeof...(I)>{Method(*tableaux::all[I])...};
}(std::make_index_sequence<tableaux::all.size()>{});

// The method called `name` (as in the config's solver.method), or nullptr.
constexpr const Method* find_method(std::string_view name) {
  for (const Method& method : all_methods)
    if (method.name() == name) return &method;
  return nullptr;
}

// Calls f(stepper) with a stepper of `method` for `model` on scalar T and algebra A, and
// returns what f returns.
template <class T, Algebra A = CpuAlgebra, Model M, class F>
decltype(auto) with_stepper(const M& model, const Method& method, F&& f) {
  // One branch per family; explicit Runge-Kutta is the only one so far.
  ExplicitRK<M, T, A> stepper(model, *method.tableau);
  return f(stepper);
}

}  // namespace backsweep
