#pragma once
// How a run with events at moving times stops (floating_events.hpp), in words that name the
// event, the step and the time.
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>

#include "solvers/stepper.hpp"
#include "solvers/time_events.hpp"

namespace backsweep::detail {

// A jump that set state `a` to `value` (NaN or Inf) at tau.
[[noreturn]] inline void jumped_to_non_finite(const StepInterval& step, const TimeEvent& event,
                                              const StateAssignment& a, double tau, double value) {
  std::ostringstream what;
  what << "non-finite value (" << value << ") at t = " << tau << ", in state "
       << (a.name.empty() ? "component " + std::to_string(a.state) : "'" + a.name + "'") << ", just after event '"
       << event.name << "' (in the step from t = " << step.t << " to " << step.t_next << ")";
  throw std::runtime_error(what.str());
}

// `count` events in one step, the last at tau (`again`: the same event twice, too close).
[[noreturn]] inline void chatters(const StepInterval& step, const TimeEvent& event, std::size_t count, bool again,
                                  double tau) {
  std::ostringstream what;
  what.precision(12);
  what << "event '" << event.name << "' chatters (Zeno): " << count << " events in the step from t = " << step.t
       << " to " << step.t_next << (again ? ", the last two closer than 2^-16 of the step" : "")
       << ", the last at t = " << tau;
  throw std::runtime_error(what.str());
}

// A condition that touches 0 at tau without crossing (G_h = dg/dt along the solution, 0).
[[noreturn]] inline void touches_without_crossing(const TimeEvent& event, double tau, double g_h) {
  std::ostringstream what;
  what << "event '" << event.name << "' at t = " << tau << ": its condition touches 0 without crossing (dg/dt = "
       << g_h << "), so the event time has no derivative";
  throw std::runtime_error(what.str());
}

// Refuses a located event time whose G_h (dg/dt along the solution) is 0 or not finite.
inline void check_transversal(const TimeEvent& event, double tau, double g_h) {
  if (g_h == 0.0 || !std::isfinite(g_h)) touches_without_crossing(event, tau, g_h);
}

}  // namespace backsweep::detail
