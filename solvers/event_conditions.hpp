#pragma once
// How floating events (solvers/floating_events.hpp) are watched: their condition g(t, y, p)
// and moment at(p) on any scalar, when a condition counts as crossed (from strictly one
// side to the other side or 0), and where a piece is sampled for crossings.
#include <cmath>
#include <cstddef>
#include <vector>

#include "solvers/time_events.hpp"

namespace backsweep {

template <class T>
T event_condition(const TimeEvent& event, const T& t, const T* y, const T* p) {
  const T* segments[] = {&t, y, p};
  return event.when->evaluate_segments(segments);
}

template <class T>
T event_moment(const TimeEvent& event, const T* p) {
  const T t(0);
  const T* segments[] = {&t, nullptr, p};
  return event.at->evaluate_segments(segments);
}

// direction > 0: upward, < 0: downward, 0: either.
inline bool crosses(int direction, double g0, double g1) {
  const bool up = g0 < 0.0 && g1 >= 0.0, down = g0 > 0.0 && g1 <= 0.0;
  return direction > 0 ? up : direction < 0 ? down : up || down;
}

// Where a piece is watched for crossings, as points s in [0, 1] of it: evenly at k/8 (a
// ball's whole arc in one step is seen), and geometrically down to 2^-20 near its start,
// where a jump has just left g at 0 (a short arc).
inline const std::vector<double>& crossing_samples() {
  static const std::vector<double> points = [] {
    std::vector<double> s{0.0};
    for (int j = 20; j > 3; --j) s.push_back(std::ldexp(1.0, -j));
    for (int k = 1; k <= 8; ++k) s.push_back(k / 8.0);
    return s;
  }();
  return points;
}

// The cubic Hermite interpolant of ends z0, z1 and slopes d0, d1 (`ends` holds the four,
// n values each) at points s, exact at the ends: out[k n + i].
inline void hermite_points(std::size_t n, const double* ends, const std::vector<double>& s, std::vector<double>& out) {
  const double *z0 = ends, *z1 = z0 + n, *d0 = z1 + n, *d1 = d0 + n;
  out.resize(s.size() * n);
  for (std::size_t k = 0; k < s.size(); ++k) {
    const double x = s[k], x2 = x * x, x3 = x2 * x;
    const double h00 = 2 * x3 - 3 * x2 + 1, h10 = x3 - 2 * x2 + x, h01 = -2 * x3 + 3 * x2, h11 = x3 - x2;
    const bool first = k == 0, last = k + 1 == s.size();
    for (std::size_t i = 0; i < n; ++i)
      out[k * n + i] = first ? z0[i] : last ? z1[i] : h00 * z0[i] + h10 * d0[i] + h01 * z1[i] + h11 * d1[i];
  }
}

// The first condition, declared first, that has not fired at this moment (`fired_now`)
// and went across 0 from (t0, y0) to (t1, y1): npos where none did. `was_zero`: the event
// whose condition counts as 0 at t0 (the one just before it).
inline std::size_t first_carried_across(const TimeEvents& events, const std::vector<bool>& fired_now, double t0,
                                        const double* y0, std::size_t was_zero, double t1, const double* y1,
                                        const double* p) {
  for (std::size_t e : events.floating()) {
    const TimeEvent& event = events.events()[e];
    if (!event.when || fired_now[e]) continue;
    const double g0 = e == was_zero ? 0.0 : event_condition(event, t0, y0, p);
    if (crosses(event.direction, g0, event_condition(event, t1, y1, p))) return e;
  }
  return TimeEvents::npos;
}

// After the fixed-time events at t took the state from `before` to y (n states, np
// parameters): the conditions they carried across 0 fire at t too, in order, each on the
// state the last left (kept in `states`, if given, before each). Their indices, in order.
template <class T>
std::vector<std::size_t> fire_carried(const TimeEvents& events, double t, const T* before, const T* p, T* y,
                                      std::size_t n, std::size_t np, std::vector<std::vector<T>>* states = nullptr) {
  std::vector<std::size_t> fired;
  std::vector<bool> fired_now(events.events().size(), false);
  std::vector<double> y0(n), y1(n), pv(np);
  for (std::size_t i = 0; i < n; ++i) y0[i] = value_of(before[i]);
  for (std::size_t j = 0; j < np; ++j) pv[j] = value_of(p[j]);
  for (;;) {
    for (std::size_t i = 0; i < n; ++i) y1[i] = value_of(y[i]);
    const std::size_t e = first_carried_across(events, fired_now, t, y0.data(), TimeEvents::npos, t, y1.data(), pv.data());
    if (e == TimeEvents::npos) return fired;
    if (states) states->emplace_back(y, y + n);
    events.apply_one(e, T(t), p, y);
    fired_now[e] = true;
    fired.push_back(e);
  }
}

// The transpose of fire_carried after the fixed-time events at times()[k] (`before`: the
// state before them): lambda <- its transpose, mu += its parameters' part. The events it
// reversed, in the order they fired.
template <class T>
std::vector<std::size_t> reverse_carried(const TimeEvents& events, std::size_t k, const T* before, const T* p, T* lambda, T* mu,
                     std::size_t n, std::size_t np) {
  const double t = events.times()[k];
  std::vector<T> y(before, before + n);
  events.apply(k, p, y.data());
  std::vector<std::vector<T>> states;
  const std::vector<std::size_t> fired = fire_carried(events, t, before, p, y.data(), n, np, &states);
  for (std::size_t i = fired.size(); i-- > 0;) events.reverse_one(fired[i], T(t), n, states[i].data(), p, lambda, mu);
  return fired;
}

}  // namespace backsweep
