#include "io/config/lyapunov_spec.hpp"

#include <cmath>

#include "io/config/config_sections.hpp"
#include "solvers/method.hpp"

namespace backsweep {

LyapunovSpec lyapunov_spec(ConfigFile file) {
  toml::table& document = file.document;  // time.end supplied below (a copy would lose the lines)
  const detail::TomlSection root(file);
  detail::reject_unknown_sections(root);
  if (root.has("events"))
    root.fail("events", "Lyapunov exponents are rates of an autonomous flow: events at given times have none");
  const auto section = root.subsection("lyapunov");
  if (!section) root.fail("lyapunov", "the [lyapunov] section is required by lyapunov");
  section->reject_unknown_keys(
      {"exponents", "transient", "duration", "reorthonormalize_every", "interval", "blocks"});
  LyapunovOptions options;
  options.duration = section->required_number("duration");
  if (!(options.duration > 0.0)) section->fail("duration", "must be > 0");
  options.transient = section->number("transient", 0.1 * options.duration);
  if (!(options.transient >= 0.0)) section->fail("transient", "must be >= 0");
  options.reorthonormalize_every =
      section->count("reorthonormalize_every", options.reorthonormalize_every);
  if (options.reorthonormalize_every == 0)
    section->fail("reorthonormalize_every", "must be at least 1");
  options.blocks = section->count("blocks", options.blocks);
  if (options.blocks < 2) section->fail("blocks", "must be at least 2");

  // The shared reader wants time.end, which lyapunov does not use: supply it when absent.
  if (!document.contains("time")) document.insert("time", toml::table{});
  if (toml::table* time = document["time"].as_table(); time && !time->contains("end")) {
    const double start = time->contains("start") ? (*time)["start"].value_or(0.0) : 0.0;
    time->insert("end", start + options.transient + options.duration);
  }
  LyapunovSpec config{detail::read_simulate_sections(root), options};
  const SimulateSpec& sim = config.simulate;
  const Method& method = *find_method(sim.method_name);
  const std::size_t n = sim.state_names.size();
  config.options.exponents = section->count("exponents", n);
  if (config.options.exponents == 0 || config.options.exponents > n)
    section->fail("exponents", "must be between 1 and the number of states (" +
                                   std::to_string(n) + ")");
  config.options.t0 = sim.integrate.t0;
  if (!method.takes_fixed_step()) {
    // CVODES chooses its steps; the tangent vectors are re-orthonormalised every `interval`.
    if (section->has("reorthonormalize_every"))
      section->fail("reorthonormalize_every", "counts steps of a backsweep method; with " +
                                                  sim.method_name + " give interval (time)");
    config.options.step = section->number("interval", 0.1);
    if (!(config.options.step > 0.0)) section->fail("interval", "must be > 0");
    config.options.reorthonormalize_every = 1;
    config.options.rtol = sim.integrate.rtol;
    config.options.atol = sim.integrate.atol;
  } else {
    if (section->has("interval"))
      section->fail("interval", "is for CVODES methods; " + sim.method_name +
                                    " re-orthonormalises every reorthonormalize_every steps");
    config.options.step = sim.integrate.step;
    if (!(config.options.step > 0.0)) {
      if (const auto solver = root.subsection("solver"))
        solver->fail("step", "lyapunov needs a fixed step size");
      root.fail("solver", "lyapunov needs [solver] with a fixed step size");
    }
  }
  const double steps = (options.transient + options.duration) / config.options.step;
  if (!(steps <= 1e10)) section->fail("duration", "needs more than 10^10 steps");
  if (options.duration / config.options.step / double(options.reorthonormalize_every) <
      double(options.blocks))
    section->fail("blocks", "needs at least one re-orthonormalisation per block");
  return config;
}

}  // namespace backsweep
