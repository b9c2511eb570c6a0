#include "io/config/shadowing_section.hpp"

#include <cmath>
#include <string>

#include "io/config/backends.hpp"
#include "solvers/method.hpp"

namespace backsweep::detail {

namespace {

// How a non-average objective is refused: at the term's own key.
void require_time_average(const TomlSection& root, const GradientSpec& spec) {
  const auto objective = root.subsection("objective");
  const std::string why = "shadowing differentiates a long-time average: the objective must be "
                          "objective.integral alone (its integrand is averaged over the run)";
  if (spec.terminal) objective->fail("terminal", why);
  if (!spec.observations.empty()) objective->fail("observation", why);
  if (!spec.integral) objective->fail("integral", why + ", and it is missing");
}

}  // namespace

void read_shadowing(const TomlSection& root, GradientSpec& spec) {
  require_time_average(root, spec);
  const SimulateSpec& sim = spec.simulate;
  const auto solver = root.subsection("solver");
  if (!solver) root.fail("solver", "shadowing takes fixed steps: give solver.step (its tangents ride on the steps)");
  if (!find_method(sim.method_name)->has_stepper())
    solver->fail("method", "shadowing runs backsweep's own methods (rk4, dopri5 on fixed steps, sdirk4, ...), "
                           "not " + sim.method_name);
  const IntegrateOptions& span = sim.integrate;
  if (!(span.step > 0.0))
    solver->fail("step", "shadowing takes fixed steps: give solver.step (its tangents ride on the steps)");
  if (!backend_has(sim.backend, &BackendEntry::shadowing)) solver->fail("backend", "shadowing runs on the cpu backend");
  if (root.has("ensemble")) root.fail("ensemble", "an ensemble takes plain gradients, not shadowing");
  if (root.has("events"))
    root.fail("events", "shadowing averages over an attractor: events at given times would make it another system");
  if (const auto gradient = root.subsection("gradient"); gradient && gradient->has("initial")) {
    const auto value = gradient->table().get("initial")->value<bool>();
    if (value && *value)
      gradient->fail("initial", "a long-time average does not depend on the initial state: leave it out");
  }
  spec.initial = false;

  ShadowingSpec shadowing;
  ShadowingOptions& options = shadowing.options;
  options.t0 = span.t0;
  options.step = span.step;
  const double duration = span.t1 - span.t0;
  const auto section = root.subsection("shadowing");
  const toml::table empty;
  const TomlSection keys = section ? *section : TomlSection(empty, root.position("").file, "shadowing");
  keys.reject_unknown_keys(
      {"unstable", "segments", "segment_length", "spin_up", "batches", "flow_direction", "sweep"});
  shadowing.sweep = keys.string("sweep", "auto");
  if (shadowing.sweep != "auto" && shadowing.sweep != "tangent" && shadowing.sweep != "adjoint")
    keys.fail("sweep", "must be tangent, adjoint or auto, not '" + shadowing.sweep + "'");
  if (keys.has("unstable")) {
    options.unstable = keys.count("unstable", 0);
    shadowing.unstable_from_spectrum = false;
    if (options.unstable >= sim.initial_state.size())
      keys.fail("unstable", "must be fewer than the states (" + std::to_string(sim.initial_state.size()) + ")");
  }
  const auto steps_of = [&](double time) { return std::llround(time / span.step); };
  options.segment_length = keys.number("segment_length", 1.0);
  if (!(options.segment_length > 0.0) || steps_of(options.segment_length) < 1 ||
      std::abs(double(steps_of(options.segment_length)) * span.step - options.segment_length) >
          1e-9 * options.segment_length)
    keys.fail("segment_length", "must be a positive multiple of solver.step (" + std::to_string(span.step) + ")");
  options.spin_up = keys.number("spin_up", 0.1 * duration);
  if (!(options.spin_up >= 0.0) || options.spin_up >= duration)
    keys.fail("spin_up", "must lie in [0, time.end - time.start)");
  options.spin_up = double(steps_of(options.spin_up)) * span.step;
  options.batches = keys.count("batches", options.batches);
  if (options.batches < 2) keys.fail("batches", "must be at least 2 (their spread is the error estimate)");
  const auto fitting = std::size_t((duration - options.spin_up) / options.segment_length + 1e-9);
  options.segments = keys.count("segments", fitting);
  if (options.segments < 2 * options.batches)
    keys.fail(keys.has("segments") ? "segments" : "segment_length",
              std::to_string(options.segments) + " segments are too few for an error estimate over " +
                  std::to_string(options.batches) + " batches: give at least " +
                  std::to_string(2 * options.batches) + " (time.end, shadowing.segments or segment_length)");
  if (keys.has("flow_direction")) {
    const auto value = keys.table().get("flow_direction")->value<bool>();
    if (!value) keys.fail("flow_direction", "must be true or false");
    options.project_flow = *value;
  }
  spec.shadowing = shadowing;
}

}  // namespace backsweep::detail
