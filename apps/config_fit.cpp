#include "apps/config_fit.hpp"

#include <cstdio>
#include <iostream>

#include "apps/json_number.hpp"
#include "apps/command_io.hpp"

namespace backsweep::apps {

Scaled scaled_parameters(const FitConfig& config) {
  Scaled s;
  for (std::size_t i = 0; i < config.parameters.size(); ++i) {
    const FitParameter& p = config.parameters[i];
    if (!p.estimate) continue;
    for (std::size_t point = 0; point < p.points; ++point) {
      const EstimatedParameter e{p.index + point, p.scale};
      s.parameters.push_back(e);
      s.lower.push_back(e.to_scaled(p.lower));
      s.upper.push_back(e.to_scaled(p.upper));
      s.nominal.push_back(e.to_scaled(config.simulate.parameters[p.index + point]));
      s.config_index.push_back(i);
    }
  }
  return s;
}

FieldPenalty field_penalty(const FitConfig& config, const Scaled& scaled) {
  FieldPenalty penalty{config.simulate.fields()->grid(), {}, scaled.parameters};
  std::size_t first = 0;  // p's first entry in theta
  for (const FitParameter& p : config.parameters) {
    if (!p.estimate) continue;
    if (p.field) penalty.fields.push_back({first, p.regularization});
    first += p.points;
  }
  return penalty;
}

FitReport base_report(const FitConfig& config, const MultistartResult& runs) {
  const SimulateConfig& sim = config.simulate;
  const StartResult& best = runs.starts[runs.best];
  FitReport report;
  report.model = sim.model;
  report.method = std::string(sim.method.name());
  report.gradient_mode = to_string(config.gradient_mode);
  if (!sim.fields()) report.state_names = sim.state_names;
  for (const auto& o : config.observables) report.observable_names.push_back(o.name);
  for (const auto& e : config.experiments) report.experiment_ids.push_back(e.id);
  report.objective = best.objective;
  report.converged = best.converged;
  report.reason = best.reason;
  report.starts = runs;
  report.measurements = config.measurements;
  return report;
}

void report_parameters(const FitConfig& config, const Scaled& scaled, const std::vector<double>& x,
                       const std::vector<double>& errors, bool fields_apart, FitReport& report) {
  std::size_t i = 0;  // the estimated values come in config order, a field's point by point
  for (const FitParameter& p : config.parameters) {
    if (p.field && fields_apart) {
      i += p.estimate ? p.points : 0;
      continue;
    }
    double value = p.nominal, error = NAN;
    if (p.estimate) {
      value = scaled.parameters[i].to_value(x[i]);
      if (!errors.empty()) error = errors[i];
      ++i;
    }
    report.parameter_names.push_back(p.name);
    report.scales.emplace_back(to_string(p.scale));
    report.values.push_back(value);
    report.standard_errors.push_back(error);
    report.lower.push_back(p.lower);
    report.upper.push_back(p.upper);
    report.estimated.push_back(p.estimate ? 1.0 : 0.0);
  }
}

void print_parameters(const FitReport& report, bool with_errors, const CommandIO& io) {
  for (std::size_t k = 0; k < report.parameter_names.size(); ++k) {
    const char* fixed = report.estimated[k] != 0.0 ? "" : "  (fixed)";
    if (with_errors)
      std::fprintf(io.text_file(), "  %-12s %.10g +- %.3g%s\n", report.parameter_names[k].c_str(), report.values[k],
                   report.standard_errors[k], fixed);
    else
      std::fprintf(io.text_file(), "  %-12s %.10g%s\n", report.parameter_names[k].c_str(), report.values[k], fixed);
  }
}

nlohmann::json parameters_json(const FitReport& report) {
  nlohmann::json parameters = nlohmann::json::object();
  for (std::size_t k = 0; k < report.parameter_names.size(); ++k)
    parameters[report.parameter_names[k]] = {{"value", report.values[k]},
                                             {"standard_error", finite_or_null(report.standard_errors[k])},
                                             {"estimated", report.estimated[k] != 0.0}};
  return parameters;
}

nlohmann::json fit_json(const FitConfig& config, const FitReport& report, const std::vector<double>& profiled_sigma) {
  nlohmann::json starts = nlohmann::json::array();
  for (const StartResult& s : report.starts.starts)
    starts.push_back({{"objective", finite_or_null(s.objective)},
                      {"iterations", s.iterations},
                      {"evaluations", s.evaluations},
                      {"converged", s.converged},
                      {"reason", s.reason}});
  nlohmann::json out = {{"objective", report.objective},
                        {"converged", report.converged},
                        {"reason", report.reason},
                        {"gradient_mode", report.gradient_mode},
                        {"parameters", parameters_json(report)},
                        {"starts", starts},
                        {"events", events_json(event_records(config.simulate.integrate))}};
  if (!report.monitors.empty()) {  // per experiment, at the fit
    nlohmann::json monitor = nlohmann::json::object();
    for (std::size_t e = 0; e < report.monitors.size(); ++e) {
      const std::optional<GrowthReport>& m = report.monitors[e];
      monitor[report.experiment_ids[e]] = m ? nlohmann::json{{"watches", to_string(m->watched)},
                                                             {"verdict", to_string(m->verdict)},
                                                             {"growth_rate", m->growth_rate},
                                                             {"amplification", finite_or_null(m->amplification)},
                                                             {"horizon", finite_or_null(m->horizon)}}
                                            : nlohmann::json();
    }
    out["monitor"] = monitor;
  }
  if (config.estimate_sigma) {
    nlohmann::json sigma = nlohmann::json::object();
    for (std::size_t o = 0; o < config.observables.size(); ++o)
      sigma[config.observables[o].name] = finite_or_null(profiled_sigma[o]);
    out["sigma"] = sigma;
  }
  return out;
}

void warn_unless_converged(const StartResult& best) {
  if (!best.converged)
    std::cerr << "warning: the fit stopped before the gradient tolerance (" << best.reason
              << "; projected gradient " << best.projected_gradient_norm
              << "): the result is the best point reached (raise optimizer.max_iterations, or check the bounds)\n";
}

nlohmann::json print_gradient(const FitConfig& config, const Scaled& scaled, const std::vector<double>& gradient,
                              const CommandIO& io) {
  nlohmann::json in_scaled = nlohmann::json::object(), in_linear = nlohmann::json::object();
  for (std::size_t i = 0; i < gradient.size(); ++i) {
    const FitParameter& p = config.parameters[scaled.config_index[i]];
    if (p.field) continue;
    const double linear = gradient[i] / scaled.parameters[i].slope(scaled.nominal[i]);
    in_scaled[p.name] = gradient[i];
    in_linear[p.name] = linear;
    std::fprintf(io.text_file(), "  dJ/d%-10s %.10g (scaled)  %.10g (linear)\n", p.name.c_str(), gradient[i], linear);
  }
  return {{"scaled", in_scaled}, {"linear", in_linear}};
}

void print_estimated_sigma(const FitConfig& config, const std::vector<double>& sigma, const CommandIO& io) {
  if (config.estimate_sigma)
    for (std::size_t o = 0; o < config.observables.size(); ++o)
      std::fprintf(io.text_file(), "  sigma(%s) = %.6g  (estimated)\n", config.observables[o].name.c_str(),
                   sigma[o]);
}

void print_fit_plan(const FitConfig& config, const Scaled& scaled, std::string_view values, std::string_view how) {
  std::cerr << "fit: " << scaled.parameters.size() << ' ' << values << ", " << config.measurements.size()
            << " measurements, " << config.experiments.size() << " experiment(s); gradients by the "
            << (config.gradient_mode == GradientMode::adjoint ? "discrete adjoint" : "forward tangent") << " of "
            << config.simulate.method.name() << "; " << how << '\n';
}

void print_progress(std::size_t start, std::size_t iteration, double f, double g, double step) {
  std::fprintf(stderr, "  start %zu  iteration %3zu  objective %.10g  |grad| %.3e  step %.3e\n", start + 1,
               iteration, f, g, step);
}

}  // namespace backsweep::apps
