#include "io/config/events_section.hpp"

#include <algorithm>
#include <cmath>

#include "io/config/detail/joined.hpp"
#include "io/config/expression_reader.hpp"
#include "solvers/cvodes.hpp"
#include "solvers/method.hpp"

namespace backsweep::detail {

namespace {

// `at`: a number, an array of numbers, or {start, period, count}.
std::vector<double> event_times(const TomlSection& entry, const IntegrateOptions& options) {
  if (!entry.has("at")) entry.fail("at", "is required: a time, a list of times or {start, period, count}");
  const toml::node& node = *entry.table().get("at");
  std::vector<double> times;
  if (node.is_number()) {
    times.push_back(entry.required_number("at"));
  } else if (node.is_array()) {
    times = entry.number_array("at");
    if (times.empty()) entry.fail("at", "lists no time");
  } else if (node.is_table()) {
    const TomlSection every = *entry.subsection("at");
    every.reject_unknown_keys({"start", "period", "count"});
    const double start = every.required_number("start"), period = every.required_number("period");
    if (!every.has("count")) every.fail("count", "is required: how many times the event happens");
    const std::size_t count = every.count("count", 0);
    if (!(period > 0.0) || !std::isfinite(period)) every.fail("period", "must be a finite number > 0");
    if (count == 0) every.fail("count", "must be at least 1");
    if (count > options.max_steps)  // each event ends a step
      every.fail("count", "must not exceed solver.max_steps (" + std::to_string(options.max_steps) + ")");
    for (std::size_t k = 0; k < count; ++k) times.push_back(start + double(k) * period);
  } else if (node.is_string()) {
    entry.fail("at", "an event time that depends on the parameters is not taken yet: give numbers");
  } else {
    entry.fail("at", "must be a time, a list of times or {start, period, count}");
  }
  for (double t : times) {
    if (!std::isfinite(t)) entry.fail("at", "must be finite");
    if (t < options.t0) entry.fail("at", "an event before time.start (" + std::to_string(options.t0) + ") never happens");
  }
  std::sort(times.begin(), times.end());
  return times;
}

}  // namespace

std::vector<EventSpec> read_events(const TomlSection& root, const SimulateSpec& config) {
  std::vector<EventSpec> events;
  const toml::node* node = root.table().get("events");
  if (!node) return events;
  const toml::array* list = node->as_array();
  if (!list || !list->is_array_of_tables()) root.fail("events", "must be an array of tables: [[events]]");
  if (config.fields()) root.fail("events", "events on a model on a grid are not taken yet");
  if (!find_method(config.method_name)->has_stepper())
    root.fail("events", std::string(kCvodesTakesNoEvents) + " (solver.method = \"" + config.method_name + "\")");
  if (config.backend != "cpu")
    root.fail("events", "events run on the cpu backend only (solver.backend = \"" + config.backend + "\")");
  const ExpressionScope scope = expression_scope(config);
  for (const toml::node& item : *list) {
    const TomlSection entry(*item.as_table(), config.file, "events");
    for (const char* key : {"when", "direction", "terminal"})
      if (entry.has(key))
        entry.fail_at_key(key, "events on a condition of the state are not taken yet: an event happens at given times (at)");
    entry.reject_unknown_keys({"name", "at", "set"});
    EventSpec event;
    event.name = entry.string("name", "");
    if (event.name.empty()) entry.fail("name", "is required, and not empty");
    if (event.name.find('/') != std::string::npos) entry.fail("name", "must not contain '/' (it names an HDF5 dataset)");
    for (const EventSpec& other : events)
      if (other.name == event.name) entry.fail("name", "names another event too: '" + event.name + "'");
    event.times = event_times(entry, config.integrate);
    const std::optional<TomlSection> set = entry.subsection("set");
    if (!set || set->table().empty()) entry.fail("set", "is required: { state = \"its value after the event\" }");
    for (auto&& [key, value] : set->table()) {
      const std::string state(key.str());
      const auto& names = config.state_names;
      if (std::find(names.begin(), names.end(), state) == names.end())
        set->fail_at_key(state, "unknown state (this model has: " + joined(names) + ")");
      if (!value.is_string()) set->fail(state, "must be an expression string, e.g. \"" + state + " + dose\"");
      event.set.emplace_back(state, read_formula(*set, state, scope));
    }
    events.push_back(std::move(event));
  }
  return events;
}

}  // namespace backsweep::detail
