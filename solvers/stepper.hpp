#pragma once
// The Stepper concept: one step y_{n+1} = Phi(t_n, h_n, y_n; p) and nothing else (loops
// live in integrate.hpp, the adjoint sweep in adjoint/). A ReversibleStepper also has the
// step's exact reverse: given y_n and lambda_{n+1} it returns
//   lambda_n = (dPhi/dy_n)ᵀ lambda_{n+1}   and   mu_n = (dPhi/dp)ᵀ lambda_{n+1},
// the discrete adjoint of that step. A new method (implicit Runge-Kutta, a GPU stepper)
// is a new type that models these concepts; solvers/method.hpp names it for problems.
#include <concepts>
#include <cstddef>
#include <string_view>

namespace backsweep {

// Where one step starts, its size, and where it ends. t_next is on the step grid: it is
// what a stage at c = 1 is evaluated at, so that a first-same-as-last slope carried into
// the next step is bitwise the slope that step would compute itself.
struct StepInterval {
  double t = 0.0, h = 0.0, t_next = 0.0;
};

struct StepperTraits {
  std::string_view name;
  int order = 0;
  int embedded_order = 0;  // of the error estimate; 0 when there is none
  bool implicit = false;
  constexpr bool adaptive() const { return embedded_order > 0; }
};

template <class S>
concept Stepper = requires(S& s, const S& cs, const StepInterval& step,
                           const typename S::scalar_type* y, const typename S::scalar_type* p,
                           typename S::scalar_type* y_next) {
  typename S::scalar_type;
  typename S::algebra_type;
  { cs.traits() } -> std::convertible_to<StepperTraits>;
  { cs.state_size() } -> std::convertible_to<std::size_t>;
  // y_next = Phi(y); with an error pointer also the embedded error estimate.
  s.step(step, y, p, y_next, y_next);
  s.step(step, y, p, y_next);
  // Bookkeeping for methods that carry work from one step into the next (FSAL):
  s.accept();   // the step just taken was accepted: the next starts from its end
  s.reject();   // it was rejected: the retry starts from the same state
  s.restart();  // the next step starts from a state this stepper has not seen
  s.evaluate(step.t, y, p, y_next);  // f(t, y; p), counted
  { cs.rhs_evaluations() } -> std::convertible_to<std::size_t>;
};

template <class S>
concept ReversibleStepper =
    Stepper<S> && requires(S& s, const StepInterval& step, const typename S::scalar_type* y,
                           const typename S::scalar_type* p, typename S::scalar_type* lambda,
                           typename S::scalar_type* mu) {
      // lambda: lambda_{n+1} in, lambda_n out; mu: (dPhi/dp)ᵀ lambda_{n+1} out (param_size()).
      s.reverse(step, y, p, lambda, mu);
      { s.param_size() } -> std::convertible_to<std::size_t>;
      { s.vjp_evaluations() } -> std::convertible_to<std::size_t>;
    };

// A ReversibleStepper that can keep a record of each step (its stage values) and
// reverse a step from that record without recomputing it: what store-all keeps.
template <class S>
concept RecordingStepper =
    ReversibleStepper<S> && requires(S& s, const S& cs, const StepInterval& step,
                                     typename S::scalar_type* record,
                                     const typename S::scalar_type* p,
                                     typename S::scalar_type* lambda, typename S::scalar_type* mu) {
      { cs.record_size() } -> std::convertible_to<std::size_t>;
      s.record_to(record);  // the next steps write their records there (null: stop)
      s.reverse_recorded(step, record, p, lambda, mu);
    };

}  // namespace backsweep
