#pragma once
// EventStepper: a stepper that applies the time events (time_events.hpp) at the end of
// every step landing on an event time, and the jump's transpose first in that step's
// reverse. It is what with_stepper() gives on the host, events or none: every driver
// (integrate, replay, the adjoint sweep under any schedule, the tangent) then takes the
// same solution through the same jumps without knowing of them.
//   - The reverse of an event step retakes the step from y_n for the state before the
//     jump (one step more per event, counted); a step record keeps it instead.
//   - After a jump the next step starts afresh: a first-same-as-last slope carried from
//     the state before the jump would be wrong.
//   - Events at moving times (floating_events.hpp) need a second stepper, Sub, of the same
//     method on RescaledTime<the model>: with some, it takes every step, in pieces, and the
//     reverse retakes the step from y_n (with which every record starts). A condition that
//     a fixed-time jump carries across 0 fires at that time too.
#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "solvers/floating_events.hpp"
#include "solvers/linear_solver.hpp"
#include "solvers/stepper.hpp"
#include "solvers/time_events.hpp"

namespace backsweep {

namespace detail {
template <class S>
struct ModelTypeOf {};
template <class S>
  requires requires { typename S::model_type; }
struct ModelTypeOf<S> {
  using model_type = typename S::model_type;
};

template <class Sub>
struct FloatingOf {
  using type = std::optional<FloatingEvents<Sub>>;
};
template <>
struct FloatingOf<void> {
  using type = std::optional<int>;  // never engaged
};
}  // namespace detail

template <Stepper S, class Sub = void>
class EventStepper : public detail::ModelTypeOf<S> {
 public:
  using scalar_type = typename S::scalar_type;
  using algebra_type = typename S::algebra_type;
  using T = scalar_type;

  // events may be null (no events); sub is needed where some move (else null). All must
  // outlive the stepper.
  EventStepper(S& inner, const TimeEvents* events, Sub* sub = nullptr) : inner_(inner), events_(events) {
    if constexpr (kMoves)
      if (sub && events && !events->floating().empty()) floating_.emplace(*sub, *events);
  }

  StepperTraits traits() const { return inner_.traits(); }
  decltype(auto) model() const { return inner_.model(); }
  std::size_t state_size() const { return inner_.state_size(); }
  std::size_t param_size() const
    requires ReversibleStepper<S>
  {
    return inner_.param_size();
  }

  BACKSWEEP_INLINE void step(const StepInterval& step, const T* y, const T* p, T* y_next, T* error = nullptr) {
    if (moving()) {
      if (record_) std::copy(y, y + state_size(), record_);  // a record starts with y_n, as the sweep reads it
      if constexpr (kMoves) jumped_ = floating_->step(step, y, p, y_next, error);
    } else {
      inner_.step(step, y, p, y_next, error);
      jumped_ = false;
      if (!events_) [[likely]]
        return;
    }
    const std::size_t k = event_at(step);
    if (k == TimeEvents::npos) return;
    if (record_) std::copy(y_next, y_next + state_size(), record_ + inner_record_size());
    if (carries()) jump_before_.assign(y_next, y_next + state_size());
    events_->apply(k, p, y_next);
    if (carries())
      log_carried(step.t_next, fire_carried(*events_, step.t_next, jump_before_.data(), p, y_next, state_size(),
                                            events_->param_size()));
    jumped_ = true;
  }
  void accept() {
    inner_.accept();
    if (jumped_) inner_.restart();
  }
  void reject() { inner_.reject(); }
  void restart() { inner_.restart(); }
  void evaluate(double t, const T* y, const T* p, T* dydt) { inner_.evaluate(t, y, p, dydt); }
  // (with events at moving times, the steps' are the rescaled stepper's)
  std::size_t rhs_evaluations() const {
    if constexpr (kMoves)
      if (moving()) return inner_.rhs_evaluations() + floating_->sub().rhs_evaluations();
    return inner_.rhs_evaluations();
  }

  void reverse(const StepInterval& step, const T* y, const T* p, T* lambda, T* mu)
    requires ReversibleStepper<S>
  {
    const auto reverse_step = [&](T* l, T* m) {
      if constexpr (kMoves)
        if (moving()) return floating_->reverse(step, y, p, l, m);
      inner_.reverse(step, y, p, l, m);
    };
    const std::size_t k = event_at(step);
    if (k == TimeEvents::npos) return reverse_step(lambda, mu);
    before_.resize(state_size());
    if (moving()) {
      if constexpr (kMoves) floating_->step(step, y, p, before_.data(), nullptr);
    } else {
      inner_record_to(nullptr);  // the retaken step is not recorded
      inner_.restart();
      inner_.step(step, y, p, before_.data());
      inner_.restart();
      inner_record_to(record_);
    }
    reverse_through(k, before_.data(), p, lambda, mu, reverse_step);
  }

  std::size_t vjp_evaluations() const
    requires ReversibleStepper<S>
  {
    if constexpr (kMoves)
      if (moving()) return inner_.vjp_evaluations() + floating_->sub().vjp_evaluations();
    return inner_.vjp_evaluations();
  }
  auto vjp_method() const
    requires requires(const S& s) { s.vjp_method(); }
  {
    return inner_.vjp_method();
  }
  bool newton_failed() const
    requires requires(const S& s) { s.newton_failed(); }
  {
    if constexpr (kMoves)
      if (moving()) return floating_->sub().newton_failed();
    return inner_.newton_failed();
  }
  std::string linear_failure() const
    requires requires(const S& s) { s.linear_failure(); }
  {
    if constexpr (kMoves)
      if (moving()) return floating_->sub().linear_failure();
    return inner_.linear_failure();
  }
  const LinearSolveReport& linear_solves() const
    requires requires(const S& s) { s.linear_solves(); }
  {
    return inner_.linear_solves();
  }

  // A record holds the inner stepper's, then (with events) the state before a jump.
  std::size_t record_size() const
    requires RecordingStepper<S>
  {
    return inner_.record_size() + (events_ ? state_size() : 0);
  }
  void record_to(T* where)
    requires RecordingStepper<S>
  {
    record_ = where;
    inner_.record_to(where);
  }
  void reverse_recorded(const StepInterval& step, const T* record, const T* p, T* lambda, T* mu)
    requires RecordingStepper<S>
  {
    if (moving()) return reverse(step, record, p, lambda, mu);
    const std::size_t k = event_at(step);
    if (k == TimeEvents::npos) return inner_.reverse_recorded(step, record, p, lambda, mu);
    reverse_through(k, record + inner_.record_size(), p, lambda, mu,
                    [&](T* l, T* m) { inner_.reverse_recorded(step, record, p, l, m); });
  }

 private:
  static constexpr bool kMoves = !std::is_void_v<Sub>;
  bool moving() const { return floating_.has_value(); }
  // Whether a fixed-time jump may carry a condition across 0 (solvers/event_conditions.hpp).
  bool carries() const { return moving(); }
  void log_carried(double t, const std::vector<std::size_t>& fired) const {
    std::vector<EventOccurrence> found;
    for (std::size_t e : fired) found.push_back({e, t});
    events_->log_also(found);
  }
  // The fixed-time event at the end of `step`, unless a terminal event came first.
  std::size_t event_at(const StepInterval& step) const {
    if (!events_) return TimeEvents::npos;
    if constexpr (kMoves)
      if (moving() && floating_->ended_by(step.t_next)) return TimeEvents::npos;
    return events_->find(step.t_next);
  }
  std::size_t inner_record_size() const {
    if constexpr (RecordingStepper<S>) return inner_.record_size();
    else return 0;
  }
  void inner_record_to(T* where) {
    if constexpr (RecordingStepper<S>) inner_.record_to(where);
  }

  // The jump's transpose at `before`, then the step's own reverse (`reverse_step`), with
  // the jump's parameter part added to the step's mu.
  template <class ReverseStep>
  void reverse_through(std::size_t k, const T* before, const T* p, T* lambda, T* mu, ReverseStep&& reverse_step) {
    jump_mu_.assign(param_size(), T(0));
    if (carries())  // the retaken step logged its own events again: these too
      log_carried(events_->times()[k], reverse_carried(*events_, k, before, p, lambda, jump_mu_.data(), state_size(),
                                                       events_->param_size()));
    events_->reverse(k, state_size(), before, p, lambda, jump_mu_.data());
    reverse_step(lambda, mu);
    for (std::size_t j = 0; j < jump_mu_.size(); ++j) mu[j] += jump_mu_[j];
  }

  S& inner_;
  const TimeEvents* events_;
  T* record_ = nullptr;
  bool jumped_ = false;
  std::vector<T> before_, jump_mu_, jump_before_;
  typename detail::FloatingOf<Sub>::type floating_;
};

}  // namespace backsweep
