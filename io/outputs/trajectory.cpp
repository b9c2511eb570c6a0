#include "io/outputs/trajectory.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "platform/atomic_file.hpp"
#include "io/outputs/detail/hdf5_handle.hpp"
#include "io/outputs/event_output.hpp"

namespace backsweep {

namespace {

void write_csv_to(const Trajectory& trajectory, const std::filesystem::path& temporary,
                  const std::string& path) {
  {
    std::ofstream out(temporary);
    if (!out) throw std::runtime_error("cannot write " + path);
    out.precision(17);
    out << "time";
    for (const std::string& name : trajectory.state_names) out << ',' << name;
    out << '\n';
    const std::size_t n = trajectory.state_names.size();
    for (std::size_t row = 0; row < trajectory.times.size(); ++row) {
      out << trajectory.times[row];
      for (std::size_t i = 0; i < n; ++i) out << ',' << trajectory.states[row * n + i];
      out << '\n';
    }
    out.close();
    if (!out) throw std::runtime_error("cannot write " + path);
  }
}

void write_hdf5_to(const Trajectory& trajectory, const std::filesystem::path& temporary, const std::string& path,
                   const RunInfo& run) {
  using detail::Hdf5Handle;
  {
    Hdf5Handle h5 = detail::create_result_file(temporary, path, run);
    const hsize_t rows = trajectory.times.size(), columns = trajectory.state_names.size();
    detail::write_double_dataset(h5, "time", {rows}, trajectory.times.data());
    detail::write_string_attribute(h5, "model", trajectory.model);
    detail::write_string_attribute(h5, "method", trajectory.method);
    if (trajectory.grid_shape.empty()) {
      detail::write_double_dataset(h5, "states", {rows, columns}, trajectory.states.data());
      detail::write_string_array_attribute(h5, "state_names", trajectory.state_names);
      detail::write_dataset_names(h5, "states", "names", trajectory.state_names);
    } else {  // each field over time, shaped [times, grid...]
      Hdf5Handle fields = detail::create_group(h5, "fields");
      const std::size_t points = columns / trajectory.field_names.size();
      std::vector<hsize_t> shape{rows};
      shape.insert(shape.end(), trajectory.grid_shape.begin(), trajectory.grid_shape.end());
      std::vector<double> field(rows * points);
      for (std::size_t f = 0; f < trajectory.field_names.size(); ++f) {
        for (std::size_t k = 0; k < rows; ++k)
          std::copy_n(trajectory.states.data() + k * columns + f * points, points, field.data() + k * points);
        detail::write_double_dataset(fields, trajectory.field_names[f], shape, field.data());
      }
      fields.close();
    }
    Hdf5Handle parameters(H5Gcreate2(h5, "parameters", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                          H5Gclose, "create group /parameters");
    for (std::size_t i = 0; i < trajectory.parameter_names.size(); ++i)
      detail::write_double_attribute(parameters, trajectory.parameter_names[i],
                                     trajectory.parameters[i]);
    parameters.close();
    write_events(h5, trajectory.events);
    h5.close();
  }
}

}  // namespace

void write_trajectory_csv(const Trajectory& trajectory, const std::string& path) {
  AtomicFile file(path);
  write_csv_to(trajectory, file.temporary(), path);
  file.commit();
}

void write_trajectory_hdf5(const Trajectory& trajectory, const std::string& path, const RunInfo& run) {
  AtomicFile file(path);
  write_hdf5_to(trajectory, file.temporary(), path, run);
  file.commit();
}

void write_trajectory_files(const Trajectory& trajectory, const std::string& dir, const RunInfo& run) {
  const std::filesystem::path folder(dir);
  const std::string csv = (folder / "trajectory.csv").string();
  const std::string h5 = (folder / "trajectory.h5").string();
  if (!trajectory.grid_shape.empty()) return write_trajectory_hdf5(trajectory, h5, run);
  AtomicFile csv_file(csv), h5_file(h5);
  write_csv_to(trajectory, csv_file.temporary(), csv);
  write_hdf5_to(trajectory, h5_file.temporary(), h5, run);
  // Both are complete before either replaces an earlier result.
  h5_file.commit();
  csv_file.commit();
}

}  // namespace backsweep
