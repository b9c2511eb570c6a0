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
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "models/dual.hpp"
#include "models/expression.hpp"

namespace backsweep {

// States are set to expressions parsed in model_scope(states, parameters, ...): segment 0
// t, 1 the states, 2 the parameters.
struct StateAssignment {
  std::size_t state;
  Expression value;
  std::string name = {};  // the state's, for messages
};

struct TimeEvent {
  std::string name;
  std::vector<double> times;  // any order; a time listed twice happens twice
  std::vector<StateAssignment> set;
  // An event whose time moves with the parameters or the state (floating_events.hpp) has
  // no `times` but one of: a time that is an expression of the parameters (once), or a
  // condition g(t, y, p) crossing 0 in `direction` (+1 up, -1 down, 0 either).
  std::optional<Expression> at = {};
  std::optional<Expression> when = {};
  int direction = 0;
  bool terminal = false;  // the run ends there: the state holds from then on
  bool floating() const { return at || when; }
};

// A floating event that happened: which, and when.
struct EventOccurrence {
  std::size_t event;
  double t;
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
      if (events_[e].floating()) {
        if (!events_[e].times.empty())
          throw std::invalid_argument("event '" + events_[e].name + "' has both times and a moving time");
        floating_.push_back(e);
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
    for (std::size_t e : at_[k]) apply_one(e, T(times_[k]), p, y);
  }

  // Applies the events at time t, if any happen then (at the start time, to the initial
  // state); whether some did.
  template <class T>
  bool apply_at(double t, const T* p, T* y) const {
    const std::size_t k = find(t);
    if (k != npos) apply(k, p, y);
    return k != npos;
  }

  // The same for y (`size` states) and m sensitivity rows s (m x size) of directions whose
  // parameter rows are dp (m x np): s <- r_y s + r_p dp, on Dual lanes.
  bool apply_at(double t, std::size_t size, const double* p, std::size_t m, const double* dp, double* y,
                double* s) const {
    const std::size_t k = find(t);
    if (k == npos) return false;
    using D = Dual<double, 8>;
    std::vector<D> yd(size), pd(np_);
    const std::vector<double> before(y, y + size);
    for (std::size_t first = 0; first < std::max<std::size_t>(m, 1); first += D::lanes) {
      const std::size_t width = std::min<std::size_t>(D::lanes, m - std::min(m, first));
      for (std::size_t i = 0; i < size; ++i) {
        yd[i] = D(before[i]);
        for (std::size_t l = 0; l < width; ++l) yd[i].d[l] = s[(first + l) * size + i];
      }
      for (std::size_t j = 0; j < np_; ++j) {
        pd[j] = D(p[j]);
        for (std::size_t l = 0; l < width; ++l) pd[j].d[l] = dp[(first + l) * np_ + j];
      }
      apply(k, pd.data(), yd.data());
      for (std::size_t i = 0; i < size; ++i) {
        y[i] = yd[i].v;
        for (std::size_t l = 0; l < width; ++l) s[(first + l) * size + i] = yd[i].d[l];
      }
    }
    return true;
  }

  // lambda <- (dr/dy)ᵀ lambda and mu += (dr/dp)ᵀ lambda at y_before (the state before the
  // jump); `size` is the system's state count (>= the model's).
  template <class T>
  void reverse(std::size_t k, std::size_t size, const T* y_before, const T* p, T* lambda, T* mu) const {
    const std::vector<std::size_t>& order = at_[k];
    const T t(times_[k]);
    // The state before each event at this time (the first is y_before).
    std::vector<std::vector<T>> before(order.size(), std::vector<T>(y_before, y_before + size));
    for (std::size_t i = 1; i < order.size(); ++i) {
      before[i] = before[i - 1];
      apply_one(order[i - 1], t, p, before[i].data());
    }
    for (std::size_t i = order.size(); i-- > 0;) reverse_one(order[i], t, size, before[i].data(), p, lambda, mu);
  }

  // Event e alone, at time t: y <- r_e(t, y, p).
  template <class T>
  void apply_one(std::size_t e, T t, const T* p, T* y) const {
    const TimeEvent& event = events_[e];
    std::vector<T> values(event.set.size());
    const T* segments[] = {&t, y, p};
    for (std::size_t a = 0; a < event.set.size(); ++a) values[a] = event.set[a].value.evaluate_segments(segments);
    for (std::size_t a = 0; a < event.set.size(); ++a) y[event.set[a].state] = values[a];
  }

  // Its transpose at y_before: lambda <- (dr/dy)ᵀ lambda, mu += (dr/dp)ᵀ lambda, and, given
  // t_bar, t_bar += (dr/dt)ᵀ lambda.
  template <class T>
  void reverse_one(std::size_t e, T t, std::size_t size, const T* y_before, const T* p, T* lambda, T* mu,
                   T* t_bar = nullptr) const {
    const TimeEvent& event = events_[e];
    std::vector<T> dt(1), dy(n_), dp(np_), tape, out(lambda, lambda + size);
    const T* segments[] = {&t, y_before, p};
    T* gradients[] = {dt.data(), dy.data(), dp.data()};
    for (const StateAssignment& a : event.set) out[a.state] = T(0);  // overwritten: lambda+ does not pass
    for (const StateAssignment& a : event.set) {
      a.value.gradient(segments, gradients, tape);
      for (std::size_t j = 0; j < n_; ++j) out[j] += lambda[a.state] * dy[j];
      for (std::size_t j = 0; j < np_; ++j) mu[j] += lambda[a.state] * dp[j];
      if (t_bar) *t_bar += lambda[a.state] * dt[0];
    }
    std::copy(out.begin(), out.end(), lambda);
  }

  // The floating events (in declared order), and what happened of them: each step with
  // floating events logs what it found in (t, t_next], replacing what an earlier run (a
  // rejected step, other parameters) logged there, so the log holds the latest run's.
  const std::vector<std::size_t>& floating() const { return floating_; }
  void log(double t, double t_next, const std::vector<EventOccurrence>& found) const {
    const std::lock_guard lock(log_mutex_);
    std::erase_if(log_, [&](const EventOccurrence& o) { return o.t > t && o.t <= t_next; });
    log_.insert(log_.end(), found.begin(), found.end());
  }
  // More that happened in the step log() took last (conditions a fixed-time jump set off).
  void log_also(const std::vector<EventOccurrence>& found) const {
    const std::lock_guard lock(log_mutex_);
    log_.insert(log_.end(), found.begin(), found.end());
  }
  std::vector<EventOccurrence> occurrences() const {
    const std::lock_guard lock(log_mutex_);
    std::vector<EventOccurrence> sorted = log_;
    std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.t < b.t; });
    return sorted;
  }
  std::size_t state_size() const { return n_; }
  std::size_t param_size() const { return np_; }

 private:
  std::vector<TimeEvent> events_;
  std::vector<double> times_;
  std::vector<std::vector<std::size_t>> at_;  // the events at times_[k], in declared order
  std::size_t n_, np_;
  std::vector<std::size_t> floating_;
  mutable std::mutex log_mutex_;
  mutable std::vector<EventOccurrence> log_;
};

}  // namespace backsweep
