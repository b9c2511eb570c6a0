#include "io/outputs/ensemble_output.hpp"

#include <hdf5.h>

#include "adjoint/growth_monitor.hpp"
#include "platform/atomic_file.hpp"
#include "io/outputs/detail/hdf5_handle.hpp"
#include "solvers/integrate_options.hpp"

namespace backsweep {

namespace {

using detail::Hdf5Handle;

void write_table(hid_t group, const std::string& name, std::size_t rows,
                 const std::vector<std::string>& columns, const std::vector<double>& values) {
  detail::write_double_dataset(group, name, {rows, columns.size()}, values.data());
  detail::write_dataset_names(group, name, "names", columns);
}

}  // namespace

void write_ensemble_hdf5(const EnsembleOutput& output, const std::string& path, const RunInfo& run) {
  const std::size_t b = output.objective.size();  // members
  AtomicFile file(path);
  {
    Hdf5Handle h5 = detail::create_result_file(file.temporary(), path, run);
    detail::write_string_attribute(h5, "model", output.model);
    detail::write_string_attribute(h5, "mode", output.mode);
    detail::write_string_attribute(h5, "backend", output.backend);
    detail::write_string_attribute(h5, "source", output.source);

    Hdf5Handle ensemble = detail::create_group(h5, "ensemble");
    write_table(ensemble, "values", b, output.varied_names, output.values);
    detail::write_double_dataset(ensemble, "objective", {b}, output.objective.data());
    detail::write_count_dataset(ensemble, "status", {b}, output.status.data());
    std::vector<std::string> status_codes;
    for (auto s : {IntegrateStatus::success, IntegrateStatus::invalid_options, IntegrateStatus::max_steps_reached,
                   IntegrateStatus::step_size_too_small, IntegrateStatus::non_finite_state})
      status_codes.push_back(to_string(s));
    detail::write_dataset_names(ensemble, "status", "codes", status_codes);
    detail::write_count_dataset(ensemble, "steps", {b}, output.steps.data());
    ensemble.close();

    Hdf5Handle gradient = detail::create_group(h5, "gradient");
    write_table(gradient, "parameters", b, output.parameter_names, output.dJ_dp);
    if (!output.state_names.empty()) write_table(gradient, "initial", b, output.state_names, output.dJ_dy0);
    gradient.close();

    if (!output.verdict.empty()) {
      Hdf5Handle monitor = detail::create_group(h5, "monitor");
      detail::write_count_dataset(monitor, "verdict", {b}, output.verdict.data());
      std::vector<std::string> verdict_codes;
      for (auto v : {GrowthVerdict::stable, GrowthVerdict::growing, GrowthVerdict::chaotic_divergence,
                     GrowthVerdict::stiff})
        verdict_codes.push_back(to_string(v));
      verdict_codes.push_back("none");  // kNoVerdict
      detail::write_dataset_names(monitor, "verdict", "codes", verdict_codes);
      detail::write_double_dataset(monitor, "growth_rate", {b}, output.growth_rate.data());
      detail::write_double_dataset(monitor, "amplification", {b}, output.amplification.data());
      monitor.close();
    }
    h5.close();
  }
  file.commit();
}

}  // namespace backsweep
