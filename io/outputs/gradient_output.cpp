#include "io/outputs/gradient_output.hpp"

#include <map>
#include <type_traits>
#include <variant>

#include "platform/atomic_file.hpp"
#include "io/outputs/diagnostics_record.hpp"
#include "io/outputs/detail/hdf5_handle.hpp"
#include "io/outputs/event_output.hpp"

namespace backsweep {

namespace {

using detail::Hdf5Handle;

void write_named_values(hid_t group, const std::string& name,
                        const std::vector<std::string>& names, const std::vector<double>& values) {
  detail::write_double_dataset(group, name, {values.size()}, values.data());
  detail::write_dataset_names(group, name, "names", names);
}

// The record's entries as attributes of `group`, a name's '/' a subgroup; null entries
// (absent groups) are not written.
void write_record(hid_t group, const std::vector<DiagnosticEntry>& record) {
  std::map<std::string, Hdf5Handle> subgroups;
  for (const DiagnosticEntry& entry : record) {
    if (std::holds_alternative<std::monostate>(entry.value)) continue;
    hid_t where = group;
    std::string name = entry.name;
    if (const auto slash = name.find('/'); slash != std::string::npos) {
      const std::string subgroup = name.substr(0, slash);
      auto it = subgroups.find(subgroup);
      if (it == subgroups.end()) it = subgroups.emplace(subgroup, detail::create_group(group, subgroup)).first;
      where = it->second;
      name = name.substr(slash + 1);
    }
    std::visit(
        [&](const auto& value) {
          using V = std::decay_t<decltype(value)>;
          if constexpr (std::is_same_v<V, std::string>) detail::write_string_attribute(where, name, value);
          else if constexpr (std::is_same_v<V, double>) detail::write_double_attribute(where, name, value);
          else if constexpr (std::is_same_v<V, std::uint64_t>) detail::write_count_attribute(where, name, value);
          else if constexpr (std::is_same_v<V, bool>) detail::write_count_attribute(where, name, value ? 1 : 0);
        },
        entry.value);
  }
}

void write_monitor(hid_t file, const GrowthReport& r, double tolerance) {
  Hdf5Handle group = detail::create_group(file, "monitor");
  write_record(group, monitor_record(r));
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

void write_gradient_hdf5(const GradientOutput& output, const std::string& path, const RunInfo& run) {
  AtomicFile file(path);
  {
    Hdf5Handle h5 = detail::create_result_file(file.temporary(), path, run);
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
    Hdf5Handle diagnostics = detail::create_group(h5, "diagnostics");
    write_record(diagnostics, diagnostics_record(output.diagnostics, output.mode, output.kernels));
    diagnostics.close();
    if (output.diagnostics.monitor)
      write_monitor(h5, *output.diagnostics.monitor, output.monitor_tolerance);
    write_events(h5, output.events);
    h5.close();
  }
  file.commit();
}

}  // namespace backsweep
