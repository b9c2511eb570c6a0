#pragma once
// A Method names how a problem is stepped: a stepper family and its coefficients. Problems,
// configs and the CLI hold a Method; with_stepper() turns it into the stepper type that
// does the work: ExplicitRK for explicit tableaux, ImplicitRK for diagonally implicit ones.
// A new family is one more Family value, its methods in `all_methods`, and one more case
// in with_stepper.
#include <array>
#include <stdexcept>
#include <string>
#include <cstddef>
#include <utility>
#include <string_view>
#include <type_traits>

#include "models/any_model.hpp"
#include "models/derivatives.hpp"
#include "models/dual.hpp"
#include "models/model.hpp"
#include "models/rescaled_time.hpp"
#include "solvers/algebra.hpp"
#include "solvers/butcher_tableau.hpp"
#include "solvers/dirk_tableaux.hpp"
#include "solvers/any_stepper.hpp"
#include "solvers/event_stepper.hpp"
#include "solvers/explicit_rk.hpp"
#include "solvers/implicit_rk.hpp"
#include "solvers/stepper.hpp"
#include "solvers/stepper_factory.hpp"

namespace backsweep {

constexpr bool has_diagonal(const ButcherTableau& t) {
  for (int i = 0; i < t.stages; ++i)
    if (t.a[i][i] != 0.0) return true;
  return false;
}

// A SUNDIALS method: CVODES integrates it (solvers/cvodes.hpp), not a backsweep stepper.
struct SundialsMethod {
  std::string_view name, description;
  bool bdf;
};
namespace sundials_methods {
inline constexpr SundialsMethod cvodes_bdf{"cvodes_bdf", "SUNDIALS CVODES, BDF orders 1-5 (stiff)", true};
inline constexpr SundialsMethod cvodes_adams{"cvodes_adams", "SUNDIALS CVODES, Adams-Moulton orders 1-12",
                                             false};
}  // namespace sundials_methods

struct Method {
  enum class Family { explicit_rk, diagonally_implicit_rk, cvodes };
  Family family = Family::explicit_rk;
  const ButcherTableau* tableau = nullptr;      // the Runge-Kutta families
  const SundialsMethod* sundials = nullptr;     // cvodes
  NewtonOptions newton{};  // implicit methods

  // Any Runge-Kutta tableau, explicit or diagonally implicit, is a method:
  // `GradientProblem{model, tableaux::rk4, ...}`.
  constexpr Method(const ButcherTableau& t)  // NOLINT: implicit on purpose
      : family(has_diagonal(t) ? Family::diagonally_implicit_rk : Family::explicit_rk), tableau(&t) {}
  Method(const ButcherTableau&&) = delete;  // it keeps a pointer: the tableau must outlive it
  constexpr Method(const SundialsMethod& m) : family(Family::cvodes), sundials(&m) {}  // NOLINT
  Method(const SundialsMethod&&) = delete;

  constexpr std::string_view name() const { return tableau ? tableau->name : sundials->name; }
  constexpr std::string_view description() const {
    return tableau ? tableau->description : sundials->description;
  }
  constexpr bool implicit() const { return family == Family::diagonally_implicit_rk; }
  // CVODES integrates the method itself: only the dispatch (with_stepper, solvers/solve.hpp,
  // the gradient engines) asks this; everything else asks what the method can do, below.
  constexpr bool is_sundials() const { return family == Family::cvodes; }
  // A backsweep stepper takes the steps: they are counted and recorded, and a tangent is
  // Dual lanes through them (CVODES steps internally, with its own sensitivities).
  constexpr bool has_stepper() const { return family != Family::cvodes; }
  constexpr bool is_explicit() const { return family == Family::explicit_rk; }
  constexpr bool takes_fixed_step() const { return has_stepper(); }  // CVODES chooses its own
  constexpr bool solves_linear_systems() const { return implicit() || sundials_bdf(); }
  constexpr bool sundials_bdf() const { return sundials && sundials->bdf; }
  constexpr StepperTraits traits() const {
    if (!tableau) return {sundials->name, sundials->bdf ? 5 : 12, 1, sundials->bdf};
    return {tableau->name, tableau->order, tableau->embedded_order, implicit()};
  }
  constexpr bool adaptive() const { return traits().adaptive(); }
};

inline constexpr auto all_methods = []<std::size_t... I, std::size_t... J>(
                                        std::index_sequence<I...>, std::index_sequence<J...>) {
  return std::array<Method, sizeof...(I) + sizeof...(J) + 2>{
      Method(*tableaux::all[I])..., Method(*tableaux::implicit_all[J])...,
      Method(sundials_methods::cvodes_bdf), Method(sundials_methods::cvodes_adams)};
}(std::make_index_sequence<tableaux::all.size()>{},
  std::make_index_sequence<tableaux::implicit_all.size()>{});

// The method called `name` (as in the config's solver.method), or nullptr.
constexpr const Method* find_method(std::string_view name) {
  for (const Method& method : all_methods)
    if (method.name() == name) return &method;
  return nullptr;
}

namespace detail {
// Whether with_stepper() puts the steppers behind one type (stepper_factory.hpp), so that
// each driver (integrate, replay, the adjoint sweep under every schedule, the forward
// tangents) is compiled once for a model's steppers: for a model of run-time size on
// doubles or on the forward tangents' lanes. Small static models keep their steps inlined
// into the driver's loop; other Dual widths (Hessian-vector products reverse them) stay as
// they are.
template <class M, class T>
inline constexpr bool erases_steppers =
    !HasStaticSizes<M> && (std::is_same_v<T, double> || std::is_same_v<T, Dual<double, kDerivativeLanes>>);
}  // namespace detail

// Calls f(stepper) with a stepper of `method` for `model` on scalar T and algebra A, and
// returns what f returns. On the host the stepper applies `events` (none when null) at
// the end of the steps that land on their times, and takes the steps that hold events at
// moving times in pieces (event_stepper.hpp).
// The SUNDIALS methods have no stepper: asking for one is an std::invalid_argument.
template <class T, Algebra A = CpuAlgebra, Model M, class F>
decltype(auto) with_stepper(const M& model, const Method& method, const TimeEvents* events, F&& f) {
  if (method.is_sundials())
    throw std::invalid_argument(std::string(method.name()) +
                                " is integrated by SUNDIALS: this needs a backsweep method (e.g. sdirk4)");
  if constexpr (host_vectors<A> && detail::erases_steppers<M, T>) {
    const auto stepper = method.implicit()
                             ? make_implicit_stepper<T, A>(model, *method.tableau, method.newton, events)
                             : make_explicit_stepper<T, A>(model, *method.tableau, events);
    return f(*stepper);
  } else if constexpr (host_vectors<A>) {
    // Events at moving times take the steps with the same method on the model in rescaled
    // time (floating_events.hpp).
    if (events && !events->floating().empty()) {
      if (method.implicit()) {
        detail::FloatingSteppers<M, ImplicitRK<M, T, A>, ImplicitRK<RescaledTime<M>, T, A>> steppers(
            model, events, *method.tableau, method.newton);
        return f(steppers.outer);
      }
      detail::FloatingSteppers<M, ExplicitRK<M, T, A>, ExplicitRK<RescaledTime<M>, T, A>> steppers(model, events,
                                                                                                   *method.tableau);
      return f(steppers.outer);
    }
    if (method.implicit()) {
      detail::PlainSteppers<ImplicitRK<M, T, A>> steppers(events, model, *method.tableau, method.newton);
      return f(steppers.outer);
    }
    detail::PlainSteppers<ExplicitRK<M, T, A>> steppers(events, model, *method.tableau);
    return f(steppers.outer);
  } else {
    // Newton's linear solves and the events' jumps are host code.
    if (method.implicit())
      throw std::invalid_argument(std::string(method.name()) +
                                  " is implicit: implicit methods run on the CPU backend only");
    if (events) throw std::invalid_argument("events run on the CPU backend only");
    ExplicitRK<M, T, A> stepper(model, *method.tableau);
    return f(stepper);
  }
}

// The same without events.
template <class T, Algebra A = CpuAlgebra, Model M, class F>
decltype(auto) with_stepper(const M& model, const Method& method, F&& f) {
  return with_stepper<T, A>(model, method, static_cast<const TimeEvents*>(nullptr), std::forward<F>(f));
}

}  // namespace backsweep
