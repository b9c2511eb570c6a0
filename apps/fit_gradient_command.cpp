// `backsweep gradient` on a fit config: the objective's gradient at the nominal point.
#include "apps/fit_command.hpp"

#include <algorithm>
#include <cmath>
#include <iostream>

#include <nlohmann/json.hpp>

#include "apps/config_fit.hpp"
#include "apps/config_fit_engine.hpp"
#include "apps/error_report.hpp"
#include "apps/exit_codes.hpp"
#include "apps/field_outputs.hpp"
#include "apps/json_number.hpp"
#include "apps/command_io.hpp"
#include "apps/run_record.hpp"
#include "apps/load_config.hpp"
#include "io/outputs/gradient_output.hpp"
#include "solvers/context.hpp"
#include "platform/ranks.hpp"

namespace backsweep::apps {

namespace {

// `gradient` on a fit config: the objective's gradient at the nominal point (with the
// regularisation of estimated parameter fields, whose gradients go to gradient.h5).
int fit_gradient(const FitConfig& config, CommandIO& io) {
  const Scaled scaled = scaled_parameters(config);
  const std::string mode = to_string(config.gradient_mode);
  const std::unique_ptr<FitEngine> fit = make_fit_engine(config, scaled);
  if (ranks::count() > 1) io.split = "experiments";  // DataFit spreads them
  std::vector<double> gradient;
  std::string failure;
  double value = fit->evaluate(scaled.nominal, gradient, failure);
  if (!std::isfinite(value)) {
    report_error(io.error, config.simulate.file, ": the gradient failed: ", failure);
    return fit->invalid_options().empty() ? kExitRunFailed : kExitBadInput;
  }
  const bool fields = estimates_field(config);
  if (fields) value += field_penalty(config, scaled)(scaled.nominal, gradient);
  io.text() << (fields ? "misfit + regularisation " : "negative log-likelihood ") << value << " ("
                       << mode << ")\n";
  nlohmann::json out = {{"objective", value},
                        {"gradient", print_gradient(config, scaled, gradient, io)},
                        {"gradient_mode", mode}};
  if (fields) {  // linear space, whole, in gradient.h5
    GradientOutput output;
    output.model = config.simulate.model;
    output.mode = mode;
    output.objective = value;
    output.grid_shape = config.simulate.fields()->grid().shape();
    output.parameter_fields = estimated_fields(config, [&](std::size_t i) {
      return gradient[i] / scaled.parameters[i].slope(scaled.nominal[i]);
    });
    out["gradient"]["parameter_fields"] = field_norms_json(output.parameter_fields, "/gradient/parameter_fields");
    if (io.keep)
      for (const NamedField& field : output.parameter_fields)
        io.keep_array("gradient/parameter_fields/" + field.name, output.grid_shape, field.values);
    if (io.writes_outputs()) try {
      OutputSet outputs(config.simulate.output_dir);
      write_gradient_hdf5(output, (outputs.staging() / "gradient.h5").string(), io.run);
      commit_outputs(outputs, "gradient", io.run);
    } catch (const std::exception& error) {
      report_error(io.error, error.what());
      return kExitRunFailed;
    }
    for (const auto& [name, entry] : out["gradient"]["parameter_fields"].items())
      io.text() << "  |dJ/d" << name << "| = " << entry["norm"].template get<double>() << "  (gradient.h5:"
                           << entry["dataset"].template get<std::string>() << ")\n";
  }
  io.finish(std::move(out));
  return kExitOk;
}

}  // namespace

int run_fit_gradient(const ConfigFile& file, CommandIO& io) {
  auto loaded = load_config(io.error, fit_config, file);
  if (!loaded) return kExitBadInput;
  Context context;
  loaded->simulate.integrate.context = &context;
  io.use_given_fields(loaded->simulate);
  return fit_gradient(*loaded, io);
}

}  // namespace backsweep::apps
