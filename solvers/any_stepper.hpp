#pragma once
// AnyStepper<M, T, A>: every host stepper with_stepper() makes for a model (explicit or
// implicit, with events at fixed or moving times, all EventSteppers) behind one type, so
// each driver (integrate, replay, the adjoint sweep under every schedule) is compiled once
// per model and scalar instead of once per stepper. A virtual call per step or reverse,
// nothing per stage; the arithmetic is the stepper's own, so results are bitwise those of
// the stepper's type. What only implicit steppers have (Newton's and the linear solves'
// failures, their report) answers "none" for the others. AnyForwardStepper is its forward
// part alone: what the forward tangents' Dual steppers go behind (their reverse would be
// compiled, unused).
#include <concepts>
#include <cstddef>
#include <string>

#include "models/derivatives.hpp"
#include "solvers/linear_solver.hpp"
#include "solvers/stepper.hpp"

namespace backsweep {

template <class M, class T, class A>
class AnyForwardStepper {
 public:
  using scalar_type = T;
  using algebra_type = A;
  using model_type = M;

  virtual ~AnyForwardStepper() = default;

  virtual StepperTraits traits() const = 0;
  virtual const M& model() const = 0;
  virtual std::size_t state_size() const = 0;
  virtual std::size_t param_size() const = 0;

  void step(const StepInterval& step, const T* y, const T* p, T* y_next, T* error = nullptr) {
    take_step(step, y, p, y_next, error);
  }
  virtual void accept() = 0;
  virtual void reject() = 0;
  virtual void restart() = 0;
  virtual void evaluate(double t, const T* y, const T* p, T* dydt) = 0;
  virtual std::size_t rhs_evaluations() const = 0;

  virtual bool newton_failed() const = 0;
  virtual std::string linear_failure() const = 0;
  // The implicit stepper's linear solves, or null.
  virtual const LinearSolveReport* linear_solve_report() const = 0;

 private:
  virtual void take_step(const StepInterval& step, const T* y, const T* p, T* y_next, T* error) = 0;
};

template <class M, class T, class A>
class AnyStepper : public AnyForwardStepper<M, T, A> {
 public:
  virtual void reverse(const StepInterval& step, const T* y, const T* p, T* lambda, T* mu) = 0;
  virtual std::size_t vjp_evaluations() const = 0;
  virtual VjpMethod vjp_method() const = 0;

  virtual std::size_t record_size() const = 0;
  virtual void record_to(T* where) = 0;
  virtual void reverse_recorded(const StepInterval& step, const T* record, const T* p, T* lambda, T* mu) = 0;
};

// A stepper whose linear solves, if it makes any, linear_solve_report() gives.
template <class S>
concept MayReportLinearSolves = requires(const S& s) {
  { s.linear_solve_report() } -> std::convertible_to<const LinearSolveReport*>;
};

// S's forward part as Interface (an AnyForwardStepper of model M): its own model's, or one
// that holds it (a step of AnyModel taken by its held model's stepper).
template <Stepper S, class M, class Interface>
class ForwardBehind : public Interface {
 public:
  using T = typename S::scalar_type;

  ForwardBehind(S& stepper, const M& model) : s_(stepper), model_(model) {}

  StepperTraits traits() const override { return s_.traits(); }
  const M& model() const override { return model_; }
  std::size_t state_size() const override { return s_.state_size(); }
  std::size_t param_size() const override { return s_.param_size(); }

  void accept() override { s_.accept(); }
  void reject() override { s_.reject(); }
  void restart() override { s_.restart(); }
  void evaluate(double t, const T* y, const T* p, T* dydt) override { s_.evaluate(t, y, p, dydt); }
  std::size_t rhs_evaluations() const override { return s_.rhs_evaluations(); }

  bool newton_failed() const override {
    if constexpr (requires { s_.newton_failed(); }) return s_.newton_failed();
    else return false;
  }
  std::string linear_failure() const override {
    if constexpr (requires { s_.linear_failure(); }) return s_.linear_failure();
    else return {};
  }
  const LinearSolveReport* linear_solve_report() const override {
    if constexpr (ReportsLinearSolves<S>) return &s_.linear_solves();
    else return nullptr;
  }

 protected:
  S& s_;

 private:
  void take_step(const StepInterval& step, const T* y, const T* p, T* y_next, T* error) override {
    s_.step(step, y, p, y_next, error);
  }

  const M& model_;
};

// S (a host stepper) as an AnyForwardStepper of model M.
template <Stepper S, class M>
using ForwardStepperBehind =
    ForwardBehind<S, M, AnyForwardStepper<M, typename S::scalar_type, typename S::algebra_type>>;

// S (a host stepper with its reverse and records) as an AnyStepper of model M.
template <RecordingStepper S, class M>
class StepperBehind
    : public ForwardBehind<S, M, AnyStepper<M, typename S::scalar_type, typename S::algebra_type>> {
  using Forward = ForwardBehind<S, M, AnyStepper<M, typename S::scalar_type, typename S::algebra_type>>;
  using Forward::s_;

 public:
  using T = typename S::scalar_type;

  StepperBehind(S& stepper, const M& model) : Forward(stepper, model) {}

  void reverse(const StepInterval& step, const T* y, const T* p, T* lambda, T* mu) override {
    s_.reverse(step, y, p, lambda, mu);
  }
  std::size_t vjp_evaluations() const override { return s_.vjp_evaluations(); }
  VjpMethod vjp_method() const override { return s_.vjp_method(); }

  std::size_t record_size() const override { return s_.record_size(); }
  void record_to(T* where) override { s_.record_to(where); }
  void reverse_recorded(const StepInterval& step, const T* record, const T* p, T* lambda, T* mu) override {
    s_.reverse_recorded(step, record, p, lambda, mu);
  }
};

}  // namespace backsweep
