#pragma once
// Time events: at given times the state jumps, y+ = r(t, y-, p). An event sets some states
// to expressions of (t, y, p) (a dose: gut = "gut + F*dose"); its assignments all read the
// state before it, and events at one time apply in the order they were declared. The step
// grid lands on every event time (stop_times), and the stepper that takes a step ending
// there applies the jump after it (event_stepper.hpp), so every driver (integrate, the
// adjoint sweep with any schedule, the tangent) sees the same solution. The jump's
// transpose, lambda- = (dr/dy)ᵀ lambda+ and mu += (dr/dp)ᵀ lambda+, is exact: each
// assignment's gradient by reverse mode, the events at one time undone last first.
#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "models/expression.hpp"

namespace backsweep {

// States are set to expressions parsed in model_scope(states, parameters, ...): segment 0
// t, 1 the states, 2 the parameters.
struct StateAssignment {
  std::size_t state;
  Expression value;
};

struct TimeEvent {
  std::string name;
  std::vector<double> times;  // any order; a time listed twice happens twice
  std::vector<StateAssignment> set;
};

class TimeEvents {
 public:
  // `states` and `params`: the model's sizes (a system may carry more states after them,
  // as a quadrature: events leave those alone). Throws std::invalid_argument for an
  // assignment to a state out of range or one state set twice by one event.
  TimeEvents(std::vector<TimeEvent> events, std::size_t states, std::size_t params)
      : events_(std::move(events)), n_(states), np_(params) {
    std::vector<std::pair<double, std::size_t>> occurrences;
    for (std::size_t e = 0; e < events_.size(); ++e) {
      std::vector<bool> set(n_, false);
      for (const StateAssignment& a : events_[e].set) {
        if (a.state >= n_ || set[a.state])
          throw std::invalid_argument("event '" + events_[e].name + "' sets a state twice or one the model lacks");
        set[a.state] = true;
      }
      for (double t : events_[e].times) occurrences.emplace_back(t, e);
    }
    std::stable_sort(occurrences.begin(), occurrences.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [t, e] : occurrences) {
      if (times_.empty() || times_.back() != t) {
        times_.push_back(t);
        at_.emplace_back();
      }
      at_.back().push_back(e);
    }
  }

  const std::vector<TimeEvent>& events() const { return events_; }
  // The distinct times at which some event happens, ascending.
  const std::vector<double>& times() const { return times_; }
  // The index of t in times(), or npos.
  std::size_t find(double t) const {
    const auto it = std::lower_bound(times_.begin(), times_.end(), t);
    return it != times_.end() && *it == t ? std::size_t(it - times_.begin()) : npos;
  }
  // Where a value went wrong at time t: ", just after event 'dose'" (every event at t),
  // or "" when none happens then.
  std::string just_after(double t) const {
    const std::size_t k = find(t);
    if (k == npos) return "";
    std::string names;
    for (std::size_t e : at_[k]) names += (names.empty() ? "'" : ", '") + events_[e].name + "'";
    return ", just after event " + names;
  }
  // The events that happen at times()[k], in the order they apply.
  const std::vector<std::size_t>& at(std::size_t k) const { return at_[k]; }
  static constexpr std::size_t npos = std::size_t(-1);

  // y <- r(y): the events at times()[k], in order.
  template <class T>
  void apply(std::size_t k, const T* p, T* y) const {
    std::vector<T> values;
    for (std::size_t e : at_[k]) apply_event(events_[e], times_[k], p, y, values);
  }

  // Applies the events at time t, if any happen then (at the start time, to the initial
  // state); whether some did.
  template <class T>
  bool apply_at(double t, const T* p, T* y) const {
    const std::size_t k = find(t);
    if (k != npos) apply(k, p, y);
    return k != npos;
  }

  // lambda <- (dr/dy)ᵀ lambda and mu += (dr/dp)ᵀ lambda at y_before (the state before the
  // jump); `size` is the system's state count (>= the model's).
  template <class T>
  void reverse(std::size_t k, std::size_t size, const T* y_before, const T* p, T* lambda, T* mu) const {
    const std::vector<std::size_t>& order = at_[k];
    // The state before each event at this time (the first is y_before).
    std::vector<std::vector<T>> before(order.size(), std::vector<T>(y_before, y_before + size));
    std::vector<T> values;
    for (std::size_t i = 1; i < order.size(); ++i) {
      before[i] = before[i - 1];
      apply_event(events_[order[i - 1]], times_[k], p, before[i].data(), values);
    }
    std::vector<T> dy(n_), dp(np_), tape, out(size);
    for (std::size_t i = order.size(); i-- > 0;) {
      const TimeEvent& event = events_[order[i]];
      const T t(times_[k]);
      const T* segments[] = {&t, before[i].data(), p};
      T* gradients[] = {nullptr, dy.data(), dp.data()};
      std::copy(lambda, lambda + size, out.begin());
      for (const StateAssignment& a : event.set) out[a.state] = T(0);  // overwritten: lambda+ does not pass
      for (const StateAssignment& a : event.set) {
        a.value.gradient(segments, gradients, tape);
        for (std::size_t j = 0; j < n_; ++j) out[j] += lambda[a.state] * dy[j];
        for (std::size_t j = 0; j < np_; ++j) mu[j] += lambda[a.state] * dp[j];
      }
      std::copy(out.begin(), out.end(), lambda);
    }
  }

 private:
  template <class T>
  static void apply_event(const TimeEvent& event, double time, const T* p, T* y, std::vector<T>& values) {
    const T t(time);
    values.resize(event.set.size());
    const T* segments[] = {&t, y, p};
    for (std::size_t a = 0; a < event.set.size(); ++a) values[a] = event.set[a].value.evaluate_segments(segments);
    for (std::size_t a = 0; a < event.set.size(); ++a) y[event.set[a].state] = values[a];
  }

  std::vector<TimeEvent> events_;
  std::vector<double> times_;
  std::vector<std::vector<std::size_t>> at_;  // the events at times_[k], in declared order
  std::size_t n_, np_;
};

}  // namespace backsweep
