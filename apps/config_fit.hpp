#pragma once
// What the fit commands share (fit, fits of parameter fields, gradient on a fit config):
// the estimated parameters in scaled space, the regularisation of estimated fields, the
// report at the fit, and how progress is told. Their DataFit is config_fit_engine.hpp's.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "apps/command_io.hpp"
#include "fit/estimated_parameter.hpp"
#include "fit/field_fit.hpp"
#include "fit/multistart.hpp"
#include "io/assembly/fit_config.hpp"
#include "io/outputs/fit_output.hpp"
#include "io/outputs/named_field.hpp"

namespace backsweep::apps {

// The estimated parameters, their bounds in scaled space, and the nominal point; a
// parameter field is estimated point by point, one entry a point.
struct Scaled {
  std::vector<EstimatedParameter> parameters;
  std::vector<double> lower, upper, nominal;
  std::vector<std::size_t> config_index;  // into FitConfig::parameters
};

Scaled scaled_parameters(const FitConfig& config);

// The regularisation of the estimated parameter fields (scaled space).
FieldPenalty field_penalty(const FitConfig& config, const Scaled& scaled);

// What every fit reports, from its starts' results.
FitReport base_report(const FitConfig& config, const MultistartResult& runs);

// The parameters at the fit (x, scaled space) into the report, a row each in config order:
// value, scale, bounds, whether estimated, and the standard error where `errors` gives
// one (an entry an estimated value), else NaN. Parameter fields are left out when
// `fields_apart` (a fit of fields reports them as fields).
void report_parameters(const FitConfig& config, const Scaled& scaled, const std::vector<double>& x,
                       const std::vector<double>& errors, bool fields_apart, FitReport& report);

// The report's parameter rows: "  name  value [+- error] [(fixed)]" lines, and
// {"name": {"value", "standard_error", "estimated"}} for --json.
void print_parameters(const FitReport& report, bool with_errors, const CommandIO& io);
nlohmann::json parameters_json(const FitReport& report);

// The --json object of a fit of parameters: the objective, how it ended, the parameters,
// every start's end, and the profiled sigma per observable where estimated.
nlohmann::json fit_json(const FitConfig& config, const FitReport& report, const std::vector<double>& profiled_sigma);

// A fit that stopped short of the gradient tolerance still exits 0 with its best point, and
// says so; only a fit whose objective failed everywhere exits 1.
void warn_unless_converged(const StartResult& best);

void print_estimated_sigma(const FitConfig& config, const std::vector<double>& sigma, const CommandIO& io);

// The gradient (scaled space, at the nominal point) of the scalar estimated parameters, a
// "  dJ/dname  scaled  linear" line each, as {"scaled": {...}, "linear": {...}}.
nlohmann::json print_gradient(const FitConfig& config, const Scaled& scaled, const std::vector<double>& gradient,
                              const CommandIO& io);

// "fit: 3 parameters, 40 measurements, 2 experiment(s); gradients by the discrete adjoint
// of dopri5; <how>" on stderr.
void print_fit_plan(const FitConfig& config, const Scaled& scaled, std::string_view values, std::string_view how);

void print_progress(std::size_t start, std::size_t iteration, double f, double g, double step);

// The entries of theta (or of a vector ordered like it) that belong to estimated parameter
// fields, as fields: entry i is value(i).
template <class Value>
std::vector<NamedField> estimated_fields(const FitConfig& config, Value value) {
  std::vector<NamedField> fields;
  std::size_t first = 0;
  for (const FitParameter& p : config.parameters) {
    if (!p.estimate) continue;
    if (p.field) {
      fields.push_back({p.name, std::vector<double>(p.points)});
      for (std::size_t j = 0; j < p.points; ++j) fields.back().values[j] = value(first + j);
    }
    first += p.points;
  }
  return fields;
}

// A fit of parameter fields (field_fit_command.cpp); the process exit code.
int run_field_fit(const FitConfig& config, CommandIO& io);

}  // namespace backsweep::apps
