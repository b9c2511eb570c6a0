#include "io/gradient_output.hpp"

#include "io/atomic_file.hpp"
#include "io/detail/hdf5_handle.hpp"

namespace backsweep {

namespace {

using detail::Hdf5Handle;

void write_named_values(hid_t group, const std::string& name,
                        const std::vector<std::string>& names, const std::vector<double>& values) {
  detail::write_double_dataset(group, name, {values.size()}, values.data());
  detail::write_dataset_names(group, name, "names", names);
}

void write_diagnostics(hid_t file, const GradientDiagnostics& d) {
  Hdf5Handle group = detail::create_group(file, "diagnostics");
  detail::write_string_attribute(group, "method", d.method);
  detail::write_string_attribute(group, "schedule", d.schedule);
  detail::write_string_attribute(group, "schedule_reason", d.schedule_reason);
  detail::write_string_attribute(group, "storage", d.storage);
  if (!d.derivatives.empty()) detail::write_string_attribute(group, "derivatives", d.derivatives);
  const std::pair<const char*, std::size_t> counts[] = {
      {"steps", d.steps},
      {"slots", d.slots},
      {"disk_slots", d.disk_slots},
      {"memory_bytes_written", d.memory_written},
      {"memory_bytes_read", d.memory_read},
      {"disk_bytes_written", d.disk_written},
      {"disk_bytes_read", d.disk_read},
      {"peak_slots", d.peak_slots},
      {"recomputed_steps", d.recomputed_steps},
      {"sequence_steps", d.sequence_steps},
      {"adjoint_steps", d.adjoint_steps},
      {"rhs_evaluations", d.rhs_evaluations},
      {"vjp_evaluations", d.vjp_evaluations},
      {"checkpoint_bytes", d.checkpoint_bytes}};
  for (const auto& [name, value] : counts) detail::write_count_attribute(group, name, value);
  detail::write_double_attribute(group, "forward_seconds", d.forward_seconds);
  detail::write_double_attribute(group, "backward_seconds", d.backward_seconds);
  if (d.stiffness) detail::write_double_attribute(group, "stiffness_ratio", d.stiffness->ratio);
  group.close();
}

void write_monitor(hid_t file, const GrowthReport& r, double tolerance) {
  Hdf5Handle group = detail::create_group(file, "monitor");
  detail::write_string_attribute(group, "verdict", to_string(r.verdict));
  detail::write_string_attribute(group, "explanation", r.explanation);
  detail::write_double_attribute(group, "growth_rate", r.growth_rate);
  detail::write_double_attribute(group, "amplification", r.amplification);
  detail::write_double_attribute(group, "fitted_amplification", r.fitted_amplification);
  detail::write_double_attribute(group, "horizon", r.horizon);
  detail::write_double_attribute(group, "span", r.span);
  detail::write_double_attribute(group, "tolerance", tolerance);
  detail::write_double_dataset(group, "time", {r.times.size()}, r.times.data());
  detail::write_double_dataset(group, "log_adjoint_norm", {r.log_adjoint_norm.size()},
                               r.log_adjoint_norm.data());
  detail::write_double_dataset(group, "gradient_norm", {r.gradient_norm.size()},
                               r.gradient_norm.data());

  const MagnitudeHistograms& h = r.histograms;
  Hdf5Handle histograms = detail::create_group(group, "histograms");
  detail::write_string_attribute(
      histograms, "bins",
      "bin 0: |lambda_i| < 10^first decade exponent; bin d: between 10^(exponent d-1) and "
      "10^(exponent d); last bin: larger, Inf or NaN");
  std::vector<double> exponents;
  for (int d = 0; d <= MagnitudeHistograms::kDecades; ++d)
    exponents.push_back(MagnitudeHistograms::kLowestDecade + d);
  detail::write_double_dataset(histograms, "decade_exponents", {exponents.size()},
                               exponents.data());
  detail::write_double_dataset(histograms, "interval_times", {h.interval_times.size()},
                               h.interval_times.data());
  detail::write_count_dataset(histograms, "counts",
                              {h.interval_times.size() - 1, MagnitudeHistograms::kBins},
                              h.counts.data());
  histograms.close();
  group.close();
}

}  // namespace

void write_gradient_hdf5(const GradientOutput& output, const std::string& path) {
  AtomicFile file(path);
  {
    Hdf5Handle h5 = detail::create_result_file(file.temporary(), path);
    detail::write_double_attribute(h5, "objective", output.objective);
    detail::write_string_attribute(h5, "model", output.model);
    detail::write_string_attribute(h5, "mode", output.mode);
    Hdf5Handle gradient = detail::create_group(h5, "gradient");
    write_named_values(gradient, "parameters", output.parameter_names, output.dJ_dp);
    if (!output.state_names.empty())
      write_named_values(gradient, "initial", output.state_names, output.dJ_dy0);
    for (const auto& [group_name, fields] : {std::pair{"initial", &output.initial_fields},
                                             std::pair{"parameter_fields", &output.parameter_fields}}) {
      if (fields->empty()) continue;
      Hdf5Handle group = detail::create_group(gradient, group_name);
      for (const NamedField& field : *fields)
        detail::write_double_dataset(group, field.name, {output.grid_shape.begin(), output.grid_shape.end()},
                                     field.values.data());
      group.close();
    }
    gradient.close();
    write_diagnostics(h5, output.diagnostics);
    if (output.diagnostics.monitor)
      write_monitor(h5, *output.diagnostics.monitor, output.monitor_tolerance);
    h5.close();
  }
  file.commit();
}

}  // namespace backsweep
