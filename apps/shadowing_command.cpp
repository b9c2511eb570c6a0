#include "apps/shadowing_command.hpp"

#include <algorithm>
#include <cmath>
#include <chrono>
#include <iostream>

#include <nlohmann/json.hpp>

#include "apps/error_report.hpp"
#include "apps/exit_codes.hpp"
#include "apps/json_number.hpp"
#include "apps/command_io.hpp"
#include "apps/engine_of.hpp"
#include "apps/run_record.hpp"
#include "io/assembly/visit_model.hpp"
#include "io/outputs/shadowing_output.hpp"
#include "platform/output_set.hpp"

namespace backsweep::apps {

namespace {

// The exponents computed to count the unstable directions: enough for Lorenz-96 at 40
// states (13 positive), and the positive ones of most systems; beyond, the config says.
constexpr std::size_t kSpectrumSize = 24;

// Exponents clearly positive: three standard errors above zero, and above a hundredth of
// the largest (the neutral direction's exponent is zero to within its error).
std::size_t positive_exponents(const LyapunovResult& spectrum) {
  std::size_t count = 0;
  for (std::size_t j = 0; j < spectrum.exponents.size(); ++j) {
    const double lambda = spectrum.exponents[j];
    if (lambda > 3.0 * spectrum.standard_errors[j] && lambda > 0.01 * std::abs(spectrum.exponents.front())) ++count;
  }
  return count;
}

// A segment whose shadowing direction is this many times the median's marks a stretch
// far from hyperbolic (Lorenz-96: 1e3 and more; Lorenz-63, Van der Pol: under 10).
constexpr double kDirectionOutlier = 100.0;

// auto: the adjoint marches the m unstable directions twice and sweeps back once whatever
// the parameters; the tangent carries one lane per parameter more. On Lorenz-96 (m = 13)
// the adjoint costs what 2 runs of lanes for m and one more do (bench/shadowing_lorenz96).
bool adjoint_sweep(const std::string& sweep, std::size_t m, std::size_t q) {
  if (sweep != "auto") return sweep == "adjoint";
  const auto runs = [](std::size_t lanes) {  // a segment runs at least once
    return std::max<std::size_t>((lanes + kDerivativeLanes - 1) / kDerivativeLanes, 1);
  };
  return runs(m + q) > 2 * runs(m) + 1;
}

nlohmann::json shadowing_json(const ShadowingOutput& out) {
  nlohmann::json gradient = nlohmann::json::object(), error = nlohmann::json::object();
  nlohmann::json direction = nlohmann::json::object();
  for (std::size_t j = 0; j < out.parameter_names.size(); ++j) {
    gradient[out.parameter_names[j]] = finite_or_null(out.gradient[j]);
    error[out.parameter_names[j]] = finite_or_null(out.error[j]);
    if (!out.direction_median.empty())
      direction[out.parameter_names[j]] = {{"median", finite_or_null(out.direction_median[j])},
                                           {"largest", finite_or_null(out.direction_largest[j])},
                                           {"largest_at", finite_or_null(out.direction_largest_at[j])}};
  }
  return {{"objective", out.objective},
          {"gradient", {{"parameters", gradient}}},
          {"error", {{"parameters", error}}},
          {"diagnostics",
           {{"mode", "shadowing"}, {"sweep", out.sweep}, {"method", out.method}, {"unstable", out.unstable},
            {"unstable_from", out.unstable_from}, {"exponents", out.exponents}, {"segments", out.segments},
            {"segment_length", out.segment_length}, {"spin_up", out.spin_up}, {"batches", out.batches},
            {"steps", out.steps}, {"direction", direction}, {"seconds", out.seconds}}}};
}

// A stretch where the shadowing direction grew far beyond its median, or a derivative its
// error estimate cannot tell from 0: one line on stderr each.
void warn_where_untrustworthy(const ShadowingOutput& out) {
  for (std::size_t j = 0; j < out.parameter_names.size(); ++j) {
    const bool sized = !out.direction_median.empty();
    if (sized && out.direction_largest[j] > kDirectionOutlier * out.direction_median[j])
      std::cerr << "shadowing: the shadowing direction for " << out.parameter_names[j] << " grew to "
                << out.direction_largest[j] << " (median " << out.direction_median[j] << ") in the segment at t = "
                << out.direction_largest_at[j] << ": the attractor is far from hyperbolic there, no shadowing "
                << "direction stays bounded, and such stretches dominate the derivative (its error estimate, +- "
                << out.error[j] << ", counts them); a longer run does not converge (docs/config.md, Shadowing)\n";
    else if (!(out.error[j] < std::abs(out.gradient[j]))) {
      std::cerr << "shadowing: d<J>/d" << out.parameter_names[j] << " = " << out.gradient[j] << " +- " << out.error[j]
                << " cannot be told from 0";
      if (sized) std::cerr << " (the shadowing direction's median size is " << out.direction_median[j] << ")";
      else std::cerr << " (sweep = \"tangent\", with one parameter, also measures the shadowing direction's size)";
      std::cerr << ": a longer run narrows the estimate where the attractor is hyperbolic, and near-zero Lyapunov "
                   "exponents widen it (docs/config.md, Shadowing)\n";
    }
  }
}

}  // namespace

int run_shadowing_gradient(const GradientConfig& config, const std::string& config_path, CommandIO& io) {
  const SimulateConfig& sim = config.simulate;
  ShadowingOptions options = config.shadowing->options;
  ShadowingOutput out;
  out.model = sim.model;
  out.method = std::string(sim.method.name());
  out.unstable_from = config.shadowing->unstable_from_spectrum ? "lyapunov" : "config";
  for (std::size_t j : config.parameters) out.parameter_names.push_back(sim.parameter_names[j]);
  ShadowingResult result;
  const auto start = std::chrono::steady_clock::now();
  visit_model(sim, [&](const auto& model) {
    if (config.shadowing->unstable_from_spectrum) {
      LyapunovOptions lyapunov;
      lyapunov.exponents = std::min<std::size_t>(sim.initial_state.size(), kSpectrumSize);
      lyapunov.t0 = options.t0;
      lyapunov.step = options.step;
      lyapunov.transient = options.spin_up;
      lyapunov.duration = double(options.segments) * options.segment_length / 4.0;
      const LyapunovResult spectrum = lyapunov_of(model, sim, lyapunov);
      if (!spectrum.ok()) {
        result.status = spectrum.status;
        result.message = "the Lyapunov spectrum (for shadowing.unstable): " + spectrum.message;
        return;
      }
      out.exponents = spectrum.exponents;
      options.unstable = positive_exponents(spectrum);
      if (options.unstable == spectrum.exponents.size() && options.unstable < sim.initial_state.size())
        std::cerr << "shadowing: every one of the " << options.unstable << " exponents computed is positive: "
                  << "there may be more unstable directions (give shadowing.unstable)\n";
      std::cerr << "shadowing: " << options.unstable << " unstable direction(s) from the Lyapunov spectrum (";
      for (std::size_t j = 0; j < spectrum.exponents.size(); ++j)
        std::cerr << (j ? ", " : "") << spectrum.exponents[j] << " +- " << spectrum.standard_errors[j];
      std::cerr << "); shadowing.unstable sets them\n";
      if (options.unstable == 0)
        std::cerr << "shadowing: no positive Lyapunov exponent: the system is not chaotic here, and shadowing "
                     "gives the tangent of the average (a plain gradient of objective.integral / duration "
                     "would do)\n";
    }
    out.sweep = adjoint_sweep(config.shadowing->sweep, options.unstable, config.parameters.size()) ? "adjoint"
                                                                                                  : "tangent";
    result = shadowing_of(model, config, options, out.sweep == "adjoint");
  });
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!result.ok()) {
    report_error(io.error, config_path, ": shadowing failed (", to_string(result.status), "): ", result.message);
    return result.status == IntegrateStatus::invalid_options ? kExitBadInput : kExitRunFailed;
  }
  out.objective = result.average;
  out.gradient = result.gradient;
  out.error = result.error;
  out.direction_median = result.direction_median;
  out.direction_largest = result.direction_largest;
  out.direction_largest_at = result.direction_largest_at;
  out.unstable = options.unstable;
  out.segments = options.segments;
  out.segment_length = options.segment_length;
  out.spin_up = options.spin_up;
  out.batches = options.batches;
  out.steps = result.steps;

  std::ostream& stream = io.text();
  stream << "shadowing (nilss, " << (out.sweep == "adjoint" ? "adjoint sweep, " : "") << out.method << ", "
         << out.segments << " segments of " << out.segment_length << ", " << out.unstable
         << " unstable direction(s)): <J> = " << out.objective << '\n';
  for (std::size_t j = 0; j < out.parameter_names.size(); ++j)
    stream << "  d<J>/d" << out.parameter_names[j] << " = " << out.gradient[j] << " +- " << out.error[j] << '\n';
  warn_where_untrustworthy(out);
  if (io.writes_outputs()) try {
    OutputSet outputs(sim.output_dir);
    write_shadowing_hdf5(out, (outputs.staging() / "gradient.h5").string(), io.run);
    commit_outputs(outputs, "gradient", io.run);
  } catch (const std::exception& error) {
    report_error(io.error, error.what());
    return kExitRunFailed;
  }
  io.finish(shadowing_json(out));
  return kExitOk;
}

}  // namespace backsweep::apps
