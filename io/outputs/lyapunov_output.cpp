#include "io/outputs/lyapunov_output.hpp"

#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "platform/atomic_file.hpp"
#include "io/outputs/detail/hdf5_handle.hpp"

namespace backsweep {

namespace {

void write_csv(const LyapunovOutput& output, const std::filesystem::path& temporary,
               const std::string& path) {
  std::ofstream out(temporary);
  if (!out) throw std::runtime_error("cannot write " + path);
  out.precision(17);
  const LyapunovResult& r = output.result;
  const std::size_t k = r.exponents.size();
  out << "time";
  for (std::size_t j = 0; j < k; ++j) out << ",lambda_" << j + 1;
  out << '\n';
  for (std::size_t row = 0; row < r.history_times.size(); ++row) {
    out << r.history_times[row];
    for (std::size_t j = 0; j < k; ++j) out << ',' << r.history[row * k + j];
    out << '\n';
  }
  out.close();
  if (!out) throw std::runtime_error("cannot write " + path);
}

void write_hdf5(const LyapunovOutput& output, const std::filesystem::path& temporary, const std::string& path,
                const RunInfo& run) {
  using detail::Hdf5Handle;
  const LyapunovResult& r = output.result;
  Hdf5Handle h5 = detail::create_result_file(temporary, path, run);
  const hsize_t k = r.exponents.size();
  detail::write_double_dataset(h5, "exponents", {k}, r.exponents.data());
  detail::write_double_dataset(h5, "standard_errors", {k}, r.standard_errors.data());
  detail::write_double_attribute(h5, "kaplan_yorke_dimension", r.kaplan_yorke_dimension);
  detail::write_string_attribute(h5, "model", output.model);
  detail::write_string_attribute(h5, "method", output.method);
  detail::write_double_attribute(h5, "step", output.options.step);
  detail::write_double_attribute(h5, "transient", output.options.transient);
  detail::write_double_attribute(h5, "duration", output.options.duration);
  detail::write_count_attribute(h5, "reorthonormalize_every", output.options.reorthonormalize_every);
  detail::write_count_attribute(h5, "steps", r.steps);
  Hdf5Handle history = detail::create_group(h5, "history");
  detail::write_double_dataset(history, "time", {r.history_times.size()}, r.history_times.data());
  detail::write_double_dataset(history, "exponents", {r.history_times.size(), k},
                               r.history.data());
  history.close();
  h5.close();
}

}  // namespace

void write_lyapunov_files(const LyapunovOutput& output, const std::string& dir, const RunInfo& run) {
  const std::filesystem::path folder(dir);
  const std::string csv = (folder / "lyapunov_history.csv").string();
  const std::string h5 = (folder / "lyapunov.h5").string();
  AtomicFile csv_file(csv), h5_file(h5);
  write_csv(output, csv_file.temporary(), csv);
  write_hdf5(output, h5_file.temporary(), h5, run);
  h5_file.commit();
  csv_file.commit();
}

}  // namespace backsweep
