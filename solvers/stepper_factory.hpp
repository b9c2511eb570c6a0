#pragma once
// The steppers with_stepper() puts behind AnyStepper (a model of run-time size on doubles,
// on the host) or, for the forward tangents' Dual lanes, behind AnyForwardStepper, made by
// one function per method family. A translation unit that declares
// them `extern template` for its model (apps/engine_of/model_kind.hpp) compiles none of the
// steppers' code: a model kind's steppers are compiled once, where they are instantiated
// (apps/engine_of/explicit_steppers.cpp, implicit_steppers.cpp), whichever commands use them.
#include <memory>
#include <type_traits>
#include <utility>

#include "models/any_model.hpp"
#include "models/model.hpp"
#include "models/rescaled_time.hpp"
#include "solvers/any_stepper.hpp"
#include "solvers/butcher_tableau.hpp"
#include "solvers/event_stepper.hpp"
#include "solvers/explicit_rk.hpp"
#include "solvers/implicit_rk.hpp"

namespace backsweep {

// What a host stepper on T goes behind: all of AnyStepper on doubles (the adjoint's), the
// forward part on the tangents' Dual lanes.
template <class M, class T, class A>
using ErasedStepper = std::conditional_t<std::is_same_v<T, double>, AnyStepper<M, T, A>, AnyForwardStepper<M, T, A>>;

namespace detail {
template <class S, class M>
struct Behind {
  using type = ForwardStepperBehind<S, M>;
};
template <class S, class M>
  requires std::is_same_v<typename S::scalar_type, double>
struct Behind<S, M> {
  using type = StepperBehind<S, M>;
};

// A model that holds one of several (AnyModel, models/any_model.hpp, or a system of it).
template <class M>
concept HoldsModels = requires(const M& model) { with_held(model, models::HeldProbe{}); };

// A stepper and the EventStepper over it (events at fixed times only, or none).
template <class Stepper>
struct PlainSteppers {
  using Outer = EventStepper<Stepper>;
  template <class... Args>
  explicit PlainSteppers(const TimeEvents* events, const Args&... args) : stepper(args...), outer(stepper, events) {}
  Stepper stepper;
  Outer outer;
};

// A small static model held by another, kept by value (with_held may hand over a
// temporary), and the steppers over it.
template <class H>
struct KeptModel {
  H model;
};
template <class H, class T, class A>
struct HeldSteppers : KeptModel<H>, PlainSteppers<ExplicitRK<H, T, A>> {
  HeldSteppers(const TimeEvents* events, const H& held, const ButcherTableau& tableau)
      : KeptModel<H>{held}, PlainSteppers<ExplicitRK<H, T, A>>(events, this->model, tableau) {}
};

// A stepper, its twin on the model in rescaled time (for the steps that hold events at
// moving times, floating_events.hpp) and the EventStepper over both.
template <class M, class Stepper, class Sub>
struct FloatingSteppers {
  using Outer = EventStepper<Stepper, Sub>;
  FloatingSteppers(const M& model, const TimeEvents* events, const ButcherTableau& tableau)
      : rescaled(model), stepper(model, tableau), sub(rescaled, tableau), outer(stepper, events, &sub) {}
  FloatingSteppers(const M& model, const TimeEvents* events, const ButcherTableau& tableau, const NewtonOptions& newton)
      : rescaled(model), stepper(model, tableau, newton), sub(rescaled, tableau, automatic_solver(newton)),
        outer(stepper, events, &sub) {}

  RescaledTime<M> rescaled;
  Stepper stepper;
  Sub sub;
  Outer outer;

 private:
  static NewtonOptions automatic_solver(NewtonOptions newton) {
    newton.linear_solver = LinearSolver::automatic;  // the rescaled model declares no sparsity
    return newton;
  }
};

// Steppers (Parts) owned by the ErasedStepper of model M that the drivers see.
template <class Parts, class M>
class OwnedStepper final : Parts, public Behind<typename Parts::Outer, M>::type {
 public:
  template <class... Args>
  explicit OwnedStepper(const M& model, Args&&... args)
      : Parts(std::forward<Args>(args)...), Behind<typename Parts::Outer, M>::type(this->outer, model) {}
};

template <class Parts, class M, class T, class A, class... Args>
std::unique_ptr<ErasedStepper<M, T, A>> owned(const M& model, Args&&... args) {
  return std::make_unique<OwnedStepper<Parts, M>>(model, std::forward<Args>(args)...);
}
}  // namespace detail

// An explicit method's stepper for `model`, applying `events` (none when null). A small
// static model held by `model` takes its steps by its own type's stepper, as fast as that
// type's; the drivers still see one type for them all.
template <class T, class A, class M>
std::unique_ptr<ErasedStepper<M, T, A>> make_explicit_stepper(const M& model, const ButcherTableau& tableau,
                                                           const TimeEvents* events) {
  using detail::owned;
  if (events && !events->floating().empty())
    return owned<detail::FloatingSteppers<M, ExplicitRK<M, T, A>, ExplicitRK<RescaledTime<M>, T, A>>, M, T, A>(
        model, model, events, tableau);
  if constexpr (detail::HoldsModels<M>) {
    return with_held(model, [&](const auto& held) -> std::unique_ptr<ErasedStepper<M, T, A>> {
      using H = std::remove_cvref_t<decltype(held)>;
      if constexpr (HasStaticSizes<H>)
        return owned<detail::HeldSteppers<H, T, A>, M, T, A>(model, events, held, tableau);
      else
        return owned<detail::PlainSteppers<ExplicitRK<M, T, A>>, M, T, A>(model, events, model, tableau);
    });
  } else {
    return owned<detail::PlainSteppers<ExplicitRK<M, T, A>>, M, T, A>(model, events, model, tableau);
  }
}

// An implicit method's stepper for `model`, applying `events` (none when null).
template <class T, class A, class M>
std::unique_ptr<ErasedStepper<M, T, A>> make_implicit_stepper(const M& model, const ButcherTableau& tableau,
                                                           const NewtonOptions& newton, const TimeEvents* events) {
  using detail::owned;
  if (events && !events->floating().empty())
    return owned<detail::FloatingSteppers<M, ImplicitRK<M, T, A>, ImplicitRK<RescaledTime<M>, T, A>>, M, T, A>(
        model, model, events, tableau, newton);
  return owned<detail::PlainSteppers<ImplicitRK<M, T, A>>, M, T, A>(model, events, model, tableau, newton);
}

}  // namespace backsweep
