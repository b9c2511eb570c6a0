#include "apps/gradient_report.hpp"

#include "apps/json_number.hpp"
#include "io/outputs/diagnostics_record.hpp"
#include "io/vtk/vtk_series.hpp"

namespace backsweep::apps {

namespace {

bool on_grid(const GradientOutput& record) { return !record.grid_shape.empty(); }

nlohmann::json initial_json(const GradientOutput& record) {
  if (on_grid(record)) return field_norms_json(record.initial_fields, "/gradient/initial");
  nlohmann::json initial = nlohmann::json::object();
  for (std::size_t i = 0; i < record.state_names.size(); ++i) initial[record.state_names[i]] = record.dJ_dy0[i];
  return initial;
}

}  // namespace

GradientOutput gradient_record(const GradientConfig& config, const GradientResult<double>& result,
                               double monitor_tolerance, const KernelUse& device_kernels) {
  const SimulateConfig& sim = config.simulate;
  GradientOutput record{sim.model, to_string(config.mode), result.value, {}, {}, {}, {}, result.diagnostics,
                        monitor_tolerance, {}, {}, {}, {}, event_records(sim.integrate)};
  if (sim.expression_model) {
    const CompiledKernel* compiled = sim.expression_model->compiled();
    record.kernels = {compiled ? "compiled" : "interpreted", compiled ? compiled->compile_seconds() : 0.0};
    if (!device_kernels.how.empty()) record.kernels = device_kernels;
  }
  for (std::size_t j : config.parameters) {
    record.parameter_names.push_back(sim.parameter_names[j]);
    record.dJ_dp.push_back(result.dJ_dp[j]);
  }
  if (const GridLayout* fields = sim.fields()) {
    const std::size_t points = fields->grid().points(), scalars = fields->scalar_parameters();
    record.grid_shape = fields->grid().shape();
    if (config.initial) record.initial_fields = split_fields(fields->fields(), result.dJ_dy0.data(), points);
    record.parameter_fields = split_fields(fields->parameter_fields(), result.dJ_dp.data() + scalars, points);
  } else if (config.initial) {
    record.state_names = sim.state_names;
    record.dJ_dy0 = result.dJ_dy0;
  }
  return record;
}

void keep_gradient_arrays(const GradientOutput& record, CommandIO& io) {
  if (!io.keep) return;  // no copies for the program
  for (const NamedField& field : record.initial_fields)
    io.keep_array("gradient/initial/" + field.name, record.grid_shape, field.values);
  for (const NamedField& field : record.parameter_fields)
    io.keep_array("gradient/parameter_fields/" + field.name, record.grid_shape, field.values);
}

void print_gradient(const GradientOutput& record, const std::string& method, std::ostream& out) {
  out << "gradient (" << record.mode << ", " << method << ", " << record.diagnostics.steps
      << " steps): J = " << record.objective << '\n';
  for (std::size_t j = 0; j < record.parameter_names.size(); ++j)
    out << "  dJ/d" << record.parameter_names[j] << " = " << record.dJ_dp[j] << '\n';
  if (on_grid(record)) {  // fields by their norms, in name order, as --json lists them
    const nlohmann::json initial = initial_json(record),
                         parameters = field_norms_json(record.parameter_fields, "/gradient/parameter_fields");
    for (const auto* group : {&initial, &parameters})
      for (const auto& [name, entry] : group->items())
        out << "  |dJ/d" << name << (group == &initial ? "(0)" : "") << "| = " << entry["norm"].get<double>()
            << "  (gradient.h5:" << entry["dataset"].get<std::string>() << ")\n";
  } else {
    for (std::size_t i = 0; i < record.state_names.size(); ++i)
      out << "  dJ/d" << record.state_names[i] << "(0) = " << record.dJ_dy0[i] << '\n';
  }
}

nlohmann::json gradient_json(const GradientOutput& record) {
  nlohmann::json parameters = nlohmann::json::object();
  for (std::size_t j = 0; j < record.parameter_names.size(); ++j) parameters[record.parameter_names[j]] = record.dJ_dp[j];
  nlohmann::json gradient = {{"parameters", parameters}};
  if (!record.initial_fields.empty() || !record.state_names.empty()) gradient["initial"] = initial_json(record);
  if (on_grid(record)) gradient["parameter_fields"] = field_norms_json(record.parameter_fields, "/gradient/parameter_fields");
  nlohmann::json diagnostics = record_json(diagnostics_record(record.diagnostics, record.mode, record.kernels));
  diagnostics["monitor"] = record.diagnostics.monitor ? record_json(monitor_record(*record.diagnostics.monitor))
                                                      : nlohmann::json();
  return {{"objective", record.objective}, {"gradient", gradient}, {"diagnostics", diagnostics},
          {"events", events_json(record.events)}};
}

void write_gradient_vtk(const std::string& folder, const Grid& grid, const FieldRecorder& recorder,
                        const GradientOutput& record, double t0, int pieces) {
  write_vtk_series(folder, "states", grid, recorder.states(), pieces);
  if (const auto adjoints = recorder.adjoints(); !adjoints.empty())  // adjoint mode, our steppers
    write_vtk_series(folder, "adjoint", grid, adjoints, pieces);
  FieldSnapshot gradient_fields{t0, renamed(record.initial_fields, initial_gradient_name)};
  for (NamedField& field : renamed(record.parameter_fields, gradient_name))
    gradient_fields.fields.push_back(std::move(field));
  write_vtk_series(folder, "gradient", grid, {gradient_fields}, pieces);
}

}  // namespace backsweep::apps
