#include "io/outputs/shadowing_output.hpp"

#include "io/outputs/detail/hdf5_handle.hpp"
#include "platform/atomic_file.hpp"

namespace backsweep {

void write_shadowing_hdf5(const ShadowingOutput& output, const std::string& path, const RunInfo& run) {
  using detail::Hdf5Handle;
  AtomicFile file(path);
  {
    Hdf5Handle h5 = detail::create_result_file(file.temporary(), path, run);
    detail::write_double_attribute(h5, "objective", output.objective);
    detail::write_string_attribute(h5, "model", output.model);
    detail::write_string_attribute(h5, "method", output.method);
    detail::write_string_attribute(h5, "mode", "shadowing");
    detail::write_string_attribute(h5, "sweep", output.sweep);
    Hdf5Handle gradient = detail::create_group(h5, "gradient");
    for (const auto& [name, values] : {std::pair{"parameters", &output.gradient}, std::pair{"error", &output.error}}) {
      detail::write_double_dataset(gradient, name, {values->size()}, values->data());
      detail::write_dataset_names(gradient, name, "names", output.parameter_names);
    }
    gradient.close();
    Hdf5Handle diagnostics = detail::create_group(h5, "diagnostics");
    detail::write_count_attribute(diagnostics, "unstable", output.unstable);
    detail::write_string_attribute(diagnostics, "unstable_from", output.unstable_from);
    detail::write_count_attribute(diagnostics, "segments", output.segments);
    detail::write_double_attribute(diagnostics, "segment_length", output.segment_length);
    detail::write_double_attribute(diagnostics, "spin_up", output.spin_up);
    detail::write_count_attribute(diagnostics, "batches", output.batches);
    detail::write_count_attribute(diagnostics, "steps", output.steps);
    detail::write_double_attribute(diagnostics, "seconds", output.seconds);
    detail::write_double_dataset(diagnostics, "exponents", {output.exponents.size()}, output.exponents.data());
    if (!output.direction_median.empty()) {
      Hdf5Handle direction = detail::create_group(diagnostics, "direction");
      for (const auto& [name, values] : {std::pair{"median", &output.direction_median},
                                         std::pair{"largest", &output.direction_largest},
                                         std::pair{"largest_at", &output.direction_largest_at}}) {
        detail::write_double_dataset(direction, name, {values->size()}, values->data());
        detail::write_dataset_names(direction, name, "names", output.parameter_names);
      }
      direction.close();
    }
    diagnostics.close();
    h5.close();
  }
  file.commit();
}

}  // namespace backsweep
