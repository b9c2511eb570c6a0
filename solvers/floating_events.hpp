#pragma once
// Events whose time moves: at a time that is an expression of the parameters (a lag time),
// or where a condition g(t, y, p) crosses 0 (a ball reaching the floor). A step of the grid
// that holds some is taken in pieces: from t_n to the first event time tau, the jump there,
// on to the next, ..., to t_{n+1}. Each piece is one step of the method of RescaledTime
// (models/rescaled_time.hpp), whose start a and size h are parameters, so the reverse and
// the tangent see how every piece depends on the event times, and the event times on p
// and on the state:
//   - tau = at(p): tau_bar adds to mu through at's gradient;
//   - g(tau, Phi(a, tau - a, y_a, p), p) = 0, with tau located by Illinois' false position
//     on the piece itself (each trial one step) to a few ulps: by the implicit function,
//       nu = tau_bar / G_h,  G_h = g_t + g_y Phi_h,
//     and the piece's adjoint is taken with lambda - nu g_yᵀ, mu gets -nu g_p, a gets
//     tau_bar - nu (g_t + g_y Phi_a) (the jump condition; Phi_h is the piece's own
//     derivative, so it includes the change of f across the event).
// The grid's times t_n stay as they are (the controller's choices are not differentiated).
// A crossing counts where g goes from strictly one side at the piece's start to the other
// side or 0 at its end; tau is taken on that far side, so a jump that leaves g there does
// not fire the event again. Another condition that the piece and the jumps at tau have
// carried across (one crossing at the same moment, or one a jump crosses, as SBML's
// triggers fire) happens at tau too: a piece of size 0 whose time is tau itself. A
// terminal event ends the run: later steps keep the state.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <optional>
#include <utility>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/dual.hpp"
#include "solvers/event_conditions.hpp"
#include "solvers/event_failures.hpp"
#include "solvers/stepper.hpp"
#include "solvers/time_events.hpp"

namespace backsweep {

template <ReversibleStepper Sub>  // a stepper of RescaledTime<the system>
class FloatingEvents {
 public:
  using T = typename Sub::scalar_type;
  // Chattering (Zeno): more events than this in one step, or one event again within
  // 2^-16 of the step (a crossing shorter than 2^-20 of it could be missed).
  static constexpr std::size_t kMaxPerStep = 64;
  static constexpr int kCloser = 16;

  FloatingEvents(Sub& sub, const TimeEvents& events)
      : sub_(sub), events_(events), n_(sub.state_size()), np_(sub.param_size() - 2), q_(np_ + 2), trial_(n_) {}

  // y_next from y over `step`, through the floating events in it; whether any happened.
  // `error` (if given) sums the pieces' error estimates.
  bool step(const StepInterval& step, const T* y, const T* p, T* y_next, T* error) {
    if (step.t >= terminated_) {
      std::copy(y, y + n_, y_next);
      if (error) std::fill(error, error + n_, T(0));
      events_.log(step.t, step.t_next, {});
      return false;
    }
    forward(step, y, p, y_next, error);
    std::vector<EventOccurrence> found;
    for (const Piece& piece : pieces_)
      if (piece.event != TimeEvents::npos) found.push_back({piece.event, value_of(piece.tau)});
    events_.log(step.t, step.t_next, found);
    return !found.empty();
  }

  const Sub& sub() const { return sub_; }

  // Whether a terminal event ended the run by time t.
  bool ended_by(double t) const { return terminated_ <= t; }

  // lambda_{n+1} -> lambda_n, mu = (dPhi/dp)ᵀ lambda_{n+1} (overwritten), Phi this step
  // with its events, retaken from y.
  void reverse(const StepInterval& step, const T* y, const T* p, T* lambda, T* mu) {
    std::fill(mu, mu + np_, T(0));
    if (step.t >= terminated_) return;
    if constexpr (!std::is_same_v<T, double>) {
      throw std::invalid_argument("events at moving times are not taken in second derivatives");
    } else {
      std::vector<double> scratch(n_);
      forward(step, y, p, scratch.data(), nullptr);
      reverse_pieces(p, lambda, mu);
    }
  }

 private:
  struct Piece {
    T a, h;
    std::size_t event;  // that happens at its end, or npos (the last piece, to t_{n+1})
    T tau;              // the event's time: a + h, or at(p) itself
    bool carried = false;  // h = 0 and tau = a: set off by the jumps before it at tau
  };

  // The pieces of `step`, their start states (starts_) and end states before the jump
  // (ends_), kept for the reverse.
  void forward(const StepInterval& step, const T* y, const T* p, T* y_next, T* error) {
    pieces_.clear();
    starts_.assign(y, y + n_);
    ends_.clear();
    if (error) std::fill(error, error + n_, T(0));
    if (step.t_next >= terminated_) terminated_ = kNever;  // another run: that end has not come yet
    std::vector<bool>& done = done_;  // at-events happen once
    done.assign(events_.events().size(), false);
    T a(step.t);
    std::vector<T>& start = start_;
    std::vector<T>& end = end_;
    std::vector<T>& piece_error = piece_error_;
    start.assign(y, y + n_);
    end.resize(n_);
    piece_error.resize(n_);
    for (;;) {
      const T h_rest = T(step.t_next) - a;
      take(a, h_rest, p, start.data(), end.data(), error ? piece_error.data() : nullptr);
      const std::size_t fired = pieces_.empty() ? TimeEvents::npos : pieces_.back().event;
      const auto [event, h_value] = first_event(step, a, p, start.data(), end.data(), done, fired);
      if (event == TimeEvents::npos) {
        add_error(piece_error, error);
        pieces_.push_back({a, h_rest, TimeEvents::npos, T(step.t_next)});
        ends_.insert(ends_.end(), end.begin(), end.end());
        std::copy(end.begin(), end.end(), y_next);
        return;
      }
      const T h = piece_size(event, a, h_value, p, start.data());
      take(a, h, p, start.data(), end.data(), error ? piece_error.data() : nullptr);
      add_error(piece_error, error);
      const T tau = events_.events()[event].at ? event_moment(events_.events()[event], p) : a + h;
      pieces_.push_back({a, h, event, tau});
      ends_.insert(ends_.end(), end.begin(), end.end());
      check_chatter(step, event, value_of(h));
      done[event] = true;
      moment_a_ = value_of(a);
      moment_start_.resize(n_);
      values_.resize(n_);
      qv_.resize(np_ + 2);
      for (std::size_t i = 0; i < n_; ++i) moment_start_[i] = value_of(start[i]);
      fired_now_.assign(events_.events().size(), false);
      for (std::size_t e = event;;) {
        events_.apply_one(e, tau, p, end.data());
        check_finite(step, events_.events()[e], value_of(tau), end.data());
        start = end;
        a = tau;
        if (events_.events()[e].terminal) {
          std::copy(start.begin(), start.end(), y_next);
          terminated_ = value_of(tau);
          return;
        }
        starts_.insert(starts_.end(), start.begin(), start.end());
        fired_now_[e] = true;
        e = carried_across(fired, value_of(tau), p, end.data());
        if (e == TimeEvents::npos) break;
        pieces_.push_back({tau, T(0), e, tau, true});
        ends_.insert(ends_.end(), end.begin(), end.end());
        if (pieces_.size() > kMaxPerStep) check_chatter(step, e, 0.0);
      }
    }
  }

  // A condition carried across 0 from the start of the piece that found this moment's
  // event (`fired`: the event that piece began just after) to the state after this
  // moment's jumps, y at tau: it fires now too (npos: none).
  std::size_t carried_across(std::size_t fired, double tau, const T* p, const T* y) {
    for (std::size_t j = 0; j < np_; ++j) qv_[j] = value_of(p[j]);
    for (std::size_t i = 0; i < n_; ++i) values_[i] = value_of(y[i]);
    return first_carried_across(events_, fired_now_, moment_a_, moment_start_.data(), fired, tau, values_.data(),
                                qv_.data());
  }

  // The first floating event in the piece from (a, start) to (t_next, end): its index
  // (npos: none) and the value of its piece's size. Ties go to the one declared first.
  // `fired`: the event the piece starts just after (its g is taken as 0 there, which is
  // on neither side: a jump that turns g around does not fire it again at once).
  std::pair<std::size_t, double> first_event(const StepInterval& step, const T& a, const T* p, const T* start,
                                             const T* end, const std::vector<bool>& done, std::size_t fired) {
    std::size_t first = TimeEvents::npos;
    double first_h = 0.0;
    const double a_value = value_of(a), h_rest = step.t_next - a_value;
    bool sampled = false;
    for (std::size_t e : events_.floating()) {
      const TimeEvent& event = events_.events()[e];
      double h = 0.0;
      if (event.at) {
        const double tau = value_of(event_moment(event, p));
        // (t_n, t_{n+1}]: one at t_n belonged to the step before.
        if (done[e] || tau <= step.t || tau < a_value || tau > step.t_next) continue;
        h = tau - a_value;
      } else {
        if (!sampled) sample(a_value, h_rest, p, start, end);
        sampled = true;
        const std::optional<double> crossing = find_crossing(event, a, h_rest, p, start, e == fired);
        if (!crossing) continue;
        h = *crossing;
      }
      if (first == TimeEvents::npos || h < first_h) {
        first = e;
        first_h = h;
      }
    }
    return {first, first_h};
  }

  // The piece's states at crossing_samples() of it, on the cubic Hermite interpolant of
  // its ends and their slopes, for finding crossings that come and go within the piece.
  void sample(double a, double h, const T* p, const T* start, const T* end) {
    qv_.resize(np_ + 2);
    for (std::size_t j = 0; j < np_; ++j) qv_[j] = value_of(p[j]);
    qv_[np_] = a;
    qv_[np_ + 1] = h;
    hermite_.resize(4 * n_);
    double *z0 = hermite_.data(), *z1 = z0 + n_, *d0 = z1 + n_, *d1 = d0 + n_;
    for (std::size_t i = 0; i < n_; ++i) z0[i] = value_of(start[i]), z1[i] = value_of(end[i]);
    sub_.model()(0.0, z0, qv_.data(), d0);
    sub_.model()(1.0, z1, qv_.data(), d1);
    hermite_points(n_, hermite_.data(), crossing_samples(), samples_);
  }

  // Where the condition first crosses in the piece: a crossing between samples of the
  // interpolant, confirmed by the steps to its ends and located by them.
  std::optional<double> find_crossing(const TimeEvent& event, const T& a, double h_rest, const T* p,
                                      const T* start, bool just_fired) {
    const double a_value = value_of(a);
    const std::vector<double>& samples = crossing_samples();
    const std::size_t last = samples.size() - 1;
    const auto g_sample = [&](std::size_t k) {
      return event_condition(event, a_value + h_rest * samples[k], samples_.data() + k * n_, qv_.data());
    };
    const auto g_true = [&](double h) {
      take(a, T(h), p, start, trial_.data(), nullptr);
      return value_of(event_condition(event, a + T(h), trial_.data(), p));
    };
    double g_before = just_fired ? 0.0 : g_sample(0);
    for (std::size_t k = 1; k <= last; ++k) {
      const double g_after = g_sample(k);
      if (crosses(event.direction, g_before, g_after)) {
        const double lo = h_rest * samples[k - 1], hi = k == last ? h_rest : h_rest * samples[k];
        const double g_lo = k == 1 ? g_before : g_true(lo), g_hi = k == last ? g_after : g_true(hi);
        if (crosses(event.direction, g_lo, g_hi)) return locate(event, a, lo, hi, g_lo, g_hi, p, start);
      }
      g_before = g_after;
    }
    return std::nullopt;
  }

  // The piece size h in (lo, hi] where g crosses, to a few ulps of the time, on the far
  // side: Illinois' false position, each trial a step.
  double locate(const TimeEvent& event, const T& a, double lo, double hi, double g_lo, double g_hi, const T* p,
                const T* start) {
    int kept = 0;  // which end stayed last time: Illinois halves its value when it stays twice
    std::vector<T>& trial = trial_;
    const double tolerance = 4.0 * std::numeric_limits<double>::epsilon() * (std::abs(value_of(a)) + hi);
    for (int iteration = 0; iteration < 200 && hi - lo > tolerance; ++iteration) {
      double h = hi - g_hi * (hi - lo) / (g_hi - g_lo);
      if (!(h > lo && h < hi)) h = lo + 0.5 * (hi - lo);
      take(a, T(h), p, start, trial.data(), nullptr);
      const double g = value_of(event_condition(event, a + T(h), trial.data(), p));
      if (g == 0.0) return h;
      if ((g < 0.0) == (g_lo < 0.0) && (g > 0.0) == (g_lo > 0.0)) {
        lo = h, g_lo = g;
        if (kept == -1) g_hi *= 0.5;
        kept = -1;
      } else {
        hi = h, g_hi = g;
        if (kept == 1) g_lo *= 0.5;
        kept = 1;
      }
    }
    return hi;
  }

  // The piece's size as a T: on Dual, with the tangent the event time has (the implicit
  // function's, for a condition).
  T piece_size(std::size_t e, const T& a, double h_value, const T* p, const T* start) {
    const TimeEvent& event = events_.events()[e];
    if (event.at) return event_moment(event, p) - a;
    if constexpr (!is_dual_v<T>) {
      return T(h_value);
    } else {
      static_assert(std::is_same_v<typename T::value_type, double>, "one level of Dual");
      std::vector<T> end(n_);
      take(a, T(h_value), p, start, end.data(), nullptr);
      const T g = event_condition(event, a + T(h_value), end.data(), p);  // its tangent at fixed h
      // G_h from a lane seeded in h alone.
      std::vector<T> p0(np_), start0(n_);
      for (std::size_t j = 0; j < np_; ++j) p0[j] = T(p[j].v);
      for (std::size_t i = 0; i < n_; ++i) start0[i] = T(start[i].v);
      const T h_seeded = T::variable(h_value, 0), a0(a.v);
      take(a0, h_seeded, p0.data(), start0.data(), end.data(), nullptr);
      const double g_h = event_condition(event, a0 + h_seeded, end.data(), p0.data()).d[0];
      detail::check_transversal(event, a.v + h_value, g_h);
      T h(h_value);
      for (int k = 0; k < T::lanes; ++k) h.d[k] = -g.d[k] / g_h;
      return h;
    }
  }

  void check_finite(const StepInterval& step, const TimeEvent& event, double tau, const T* y) const {
    using std::isfinite;
    for (const StateAssignment& a : event.set)
      if (!isfinite(value_of(y[a.state]))) detail::jumped_to_non_finite(step, event, a, tau, value_of(y[a.state]));
  }
  void check_chatter(const StepInterval& step, std::size_t event, double h) const {
    const bool again = pieces_.size() > 1 && pieces_[pieces_.size() - 2].event == event &&
                       h < std::ldexp(step.t_next - step.t, -kCloser);
    if (again || pieces_.size() > kMaxPerStep)
      detail::chatters(step, events_.events()[event], pieces_.size(), again, value_of(pieces_.back().tau));
  }

  // One piece: from (a, y) a step of size h, through the rescaled model.
  void take(const T& a, const T& h, const T* p, const T* y, T* y_next, T* error) {
    std::copy(p, p + np_, q_.begin());
    q_[np_] = a;
    q_[np_ + 1] = h;
    sub_.restart();  // a slope carried from another piece is in another time scale
    sub_.step(kUnitStep, y, q_.data(), y_next, error);
  }

  void add_error(const std::vector<T>& piece_error, T* error) const {
    if (error)
      for (std::size_t i = 0; i < n_; ++i) error[i] += piece_error[i];
  }

  // The reverse of the pieces forward() kept (T = double).
  void reverse_pieces(const double* p, double* lambda, double* mu) {
    std::vector<double> l(n_), m(np_ + 2), w(n_), wq(np_ + 2), g_y(n_, 0.0), g_p(np_), g_t(1), tape;
    double a_bar = 0.0;  // the adjoint of the start of the piece after this one
    for (std::size_t i = pieces_.size(); i-- > 0;) {
      const Piece& piece = pieces_[i];
      const double* start = starts_.data() + i * n_;
      const double* end = ends_.data() + i * n_;
      const double tau = piece.tau;
      double tau_bar = a_bar;
      if (piece.event != TimeEvents::npos) events_.reverse_one(piece.event, tau, n_, end, p, lambda, mu, &tau_bar);
      if (piece.carried) {  // no step, and its time is the piece's start
        a_bar = tau_bar;
        continue;
      }
      std::copy(lambda, lambda + n_, l.begin());
      reverse_piece(piece, p, start, l.data(), m.data());
      for (std::size_t j = 0; j < np_; ++j) mu[j] += m[j];
      a_bar = m[np_] - m[np_ + 1];
      tau_bar += m[np_ + 1];
      if (piece.event != TimeEvents::npos) {
        const TimeEvent& event = events_.events()[piece.event];
        if (event.at) {
          const double zero = 0.0;
          const double* segments[] = {&zero, nullptr, p};
          double* gradients[] = {nullptr, nullptr, g_p.data()};
          event.at->gradient(segments, gradients, tape);
          for (std::size_t j = 0; j < np_; ++j) mu[j] += tau_bar * g_p[j];
        } else {
          const double* segments[] = {&tau, end, p};
          double* gradients[] = {g_t.data(), g_y.data(), g_p.data()};
          event.when->gradient(segments, gradients, tape);
          std::copy(g_y.begin(), g_y.end(), w.begin());
          reverse_piece(piece, p, start, w.data(), wq.data());
          const double g_h = g_t[0] + wq[np_ + 1];
          detail::check_transversal(event, tau, g_h);
          const double nu = tau_bar / g_h;
          for (std::size_t k = 0; k < n_; ++k) l[k] -= nu * w[k];
          for (std::size_t j = 0; j < np_; ++j) mu[j] -= nu * (wq[j] + g_p[j]);
          a_bar += tau_bar - nu * (g_t[0] + wq[np_]);
        }
      }
      std::copy(l.begin(), l.end(), lambda);
    }
  }

  void reverse_piece(const Piece& piece, const double* p, const double* start, double* lambda, double* mq) {
    std::copy(p, p + np_, q_.begin());
    q_[np_] = piece.a;
    q_[np_ + 1] = piece.h;
    sub_.restart();
    sub_.reverse(kUnitStep, start, q_.data(), lambda, mq);
  }

  static constexpr StepInterval kUnitStep{0.0, 1.0, 1.0};
  static constexpr double kNever = std::numeric_limits<double>::infinity();

  Sub& sub_;
  const TimeEvents& events_;
  std::size_t n_, np_;
  std::vector<T> q_, starts_, ends_;
  // Work vectors of a step, sized once: the piece's start and end, its error, a trial step.
  std::vector<T> start_, end_, piece_error_, trial_;
  std::vector<bool> done_, fired_now_;  // at-events done in the step; events fired at this moment
  double moment_a_ = 0.0;              // the start of the piece that found this moment's event,
  std::vector<double> moment_start_;  // its state there (values)
  std::vector<double> values_;        // a state's values
  std::vector<double> hermite_;  // the piece's ends and slopes, as values
  std::vector<double> qv_, samples_;  // p (a, h) as values; where a piece is sampled, its states there
  std::vector<Piece> pieces_;
  double terminated_ = kNever;
};

}  // namespace backsweep
