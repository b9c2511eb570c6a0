#include "io/config/events_section.hpp"

#include <algorithm>
#include <cmath>

#include "io/config/backends.hpp"
#include "io/config/detail/joined.hpp"
#include "io/config/expression_reader.hpp"
#include "solvers/cvodes.hpp"
#include "solvers/method.hpp"

namespace backsweep::detail {

namespace {

// `at`: a number, an array of numbers, or {start, period, count}.
std::vector<double> event_times(const TomlSection& entry, const IntegrateOptions& options) {
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
    if (start > options.t1) every.fail("start", "is after time.end (" + std::to_string(options.t1) + "): the event never happens");
    for (std::size_t k = 0; k < count; ++k) times.push_back(start + double(k) * period);  // those after the end do not
  } else {
    entry.fail("at", "must be a time, a list of times or {start, period, count}");
  }
  for (double t : times) {
    if (!std::isfinite(t)) entry.fail("at", "must be finite");
    if (t < options.t0) entry.fail("at", "an event before time.start (" + std::to_string(options.t0) + ") never happens");
    if (t > options.t1 && !node.is_table())
      entry.fail("at", "an event after time.end (" + std::to_string(options.t1) + ") never happens");
  }
  std::sort(times.begin(), times.end());
  return times;
}

// `at` as an expression of the parameters and constants (a lag time): it must fall in
// (time.start, time.end] at the parameters' values.
Formula moving_time(const TomlSection& entry, const SimulateSpec& config) {
  ExpressionScope scope(config.parameter_names);
  for (const NamedConstant& constant : config.constants) scope.add_constant(constant.name, constant.value);
  const Formula formula = detail::formula_at(entry, "at");
  const Expression at = read_expression(entry, "at", scope);
  const double t = at.evaluate(config.parameters.data());
  const IntegrateOptions& o = config.integrate;
  if (!(t > o.t0 && t <= o.t1))
    entry.fail("at", "is " + std::to_string(t) + " at the parameters' values: outside (time.start, time.end] = (" +
                         std::to_string(o.t0) + ", " + std::to_string(o.t1) + "]");
  return formula;
}

// `when`, `direction` and `terminal`.
void read_condition(const TomlSection& entry, const ExpressionScope& scope, EventSpec& event) {
  if (entry.has("at")) entry.fail_at_key("when", "an event happens either at given times (at) or when a condition crosses 0 (when), not both");
  event.when = read_formula(entry, "when", scope);
  if (!entry.has("direction"))
    entry.fail("direction", "is required with when: \"up\", \"down\" or \"either\" (which crossings of 0 count)");
  const std::string direction = entry.string("direction", "");
  if (direction == "up") event.direction = 1;
  else if (direction == "down") event.direction = -1;
  else if (direction == "either") event.direction = 0;
  else entry.fail("direction", "must be \"up\", \"down\" or \"either\"");
}

}  // namespace

std::vector<EventSpec> model_events(const SimulateSpec& config) {
  std::vector<EventSpec> events;
  if (config.events.empty()) return events;
  ExpressionScope scope(config.parameter_names);
  for (const NamedConstant& constant : config.constants) scope.add_constant(constant.name, constant.value);
  const IntegrateOptions& o = config.integrate;
  for (EventSpec event : config.events) {
    const Formula& place = event.at ? *event.at : *event.when;
    if (!backend_has(config.backend, &BackendEntry::events))
      throw ConfigError(place.at, place.key, "events run on the cpu backend only (solver.backend = \"" + config.backend + "\")");
    if (event.at) {
      const Expression at = parse_formula(*event.at, scope);
      bool reads_parameters = false;
      for (std::size_t i = 0; i < config.parameter_names.size(); ++i) reads_parameters |= at.uses(i);
      if (!reads_parameters) {  // a fixed time (one outside the run never happens); a moving one may move in
        const double t = at.evaluate(config.parameters.data());
        if (!(t > o.t0 && t <= o.t1)) continue;
        event.times = {t};
        event.at.reset();
      }
    }
    if ((event.at || event.when) && !find_method(config.method_name)->has_stepper())
      throw ConfigError(place.at, place.key, std::string(kCvodesTakesNoMovingEvents) + " (solver.method = \"" +
                                                 config.method_name + "\")");
    events.push_back(std::move(event));
  }
  return events;
}

std::vector<EventSpec> read_events(const TomlSection& root, const SimulateSpec& config) {
  std::vector<EventSpec> events = model_events(config);
  const toml::node* node = root.table().get("events");
  if (!node) return events;
  const toml::array* list = node->as_array();
  if (!list || !list->is_array_of_tables()) root.fail("events", "must be an array of tables: [[events]]");
  if (config.fields()) root.fail("events", "events on a model on a grid are not taken yet");
  if (!backend_has(config.backend, &BackendEntry::events))
    root.fail("events", "events run on the cpu backend only (solver.backend = \"" + config.backend + "\")");
  const ExpressionScope scope = expression_scope(config);
  for (const toml::node& item : *list) {
    const TomlSection entry(*item.as_table(), config.file, "events");
    entry.reject_unknown_keys({"name", "at", "when", "direction", "terminal", "set"});
    EventSpec event;
    event.name = entry.string("name", "");
    if (event.name.empty()) entry.fail("name", "is required, and not empty");
    if (event.name.find('/') != std::string::npos) entry.fail("name", "must not contain '/' (it names an HDF5 dataset)");
    for (const EventSpec& other : events)
      if (other.name == event.name) entry.fail("name", "names another event too: '" + event.name + "'");
    const bool moving = entry.has("when") || (entry.has("at") && entry.table().get("at")->is_string());
    if (moving && !find_method(config.method_name)->has_stepper())
      entry.fail(entry.has("when") ? "when" : "at", std::string(kCvodesTakesNoMovingEvents) + " (solver.method = \"" +
                                                        config.method_name + "\")");
    if (entry.has("when")) read_condition(entry, scope, event);
    else if (!entry.has("at")) entry.fail("at", "is required: a time, a list of times, {start, period, count}, an expression of the parameters, or a condition (when)");
    else if (entry.table().get("at")->is_string()) event.at = moving_time(entry, config);
    else event.times = event_times(entry, config.integrate);
    if (entry.has("direction") && !event.when) entry.fail_at_key("direction", "goes with when");
    if (entry.has("terminal")) {
      const std::optional<bool> terminal = entry.table().get("terminal")->value<bool>();
      if (!terminal) entry.fail("terminal", "must be true or false");
      event.terminal = *terminal;
      if (event.terminal && !moving) entry.fail("terminal", "goes with when or an at expression (an event at given times does not end the run)");
    }
    const std::optional<TomlSection> set = entry.subsection("set");
    if ((!set || set->table().empty()) && !event.terminal)
      entry.fail("set", "is required: { state = \"its value after the event\" }");
    if (set) for (auto&& [key, value] : set->table()) {
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
