#pragma once
// [[events]]: jumps of the state at given times, read after [time] and [solver].
#include <vector>

#include "io/config/event_spec.hpp"
#include "io/config/simulate_spec.hpp"
#include "io/config/toml_reader.hpp"

namespace backsweep::detail {

// The config's events, each checked: a unique name; `at` a time, a list of times or
// {start, period, count}, after time.start; `set` a table of states and formulas. Refused
// where no event can run: a model on a grid, a SUNDIALS method, a backend other than cpu.
std::vector<EventSpec> read_events(const TomlSection& root, const SimulateSpec& config);

// An SBML model's events (config.events), once the run's interval is known: one at a time
// of the parameters happens where that time falls in (time.start, time.end] at their
// values (at a fixed time where it reads none), and not at all elsewhere.
std::vector<EventSpec> model_events(const SimulateSpec& config);

}  // namespace backsweep::detail
