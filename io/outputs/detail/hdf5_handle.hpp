#pragma once
// Small RAII owners for HDF5 C API identifiers, and helpers for the attributes backsweep
// writes: strings are variable-length UTF-8, counters unsigned 64-bit integers. Every failure throws std::runtime_error with what was being written.
#include <hdf5.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "platform/run_info.hpp"

namespace backsweep::detail {

class Hdf5Handle {
 public:
  using Closer = herr_t (*)(hid_t);
  Hdf5Handle(hid_t id, Closer close, const std::string& what);
  ~Hdf5Handle();
  Hdf5Handle(const Hdf5Handle&) = delete;
  Hdf5Handle& operator=(const Hdf5Handle&) = delete;
  Hdf5Handle(Hdf5Handle&& other) noexcept
      : id_(std::exchange(other.id_, -1)), close_(other.close_), what_(std::move(other.what_)) {}
  operator hid_t() const { return id_; }
  // Closes now and throws if that fails (for a file: the final flush to disk).
  void close();

 private:
  hid_t id_;
  Closer close_;
  std::string what_;
};

void write_double_dataset(hid_t location, const std::string& name,
                          const std::vector<hsize_t>& shape, const double* data);
void write_count_dataset(hid_t location, const std::string& name,
                         const std::vector<hsize_t>& shape, const std::size_t* data);
Hdf5Handle create_group(hid_t location, const std::string& name);

// A result file at `temporary` (renamed to `path` once whole), with the run's attributes
// (platform/run_info.hpp): backsweep_version, run_id, started, config_file, config, overrides
// (none where run.version is empty).
Hdf5Handle create_result_file(const std::string& temporary, const std::string& path, const RunInfo& run);
void write_string_attribute(hid_t location, const std::string& name, const std::string& value);
void write_string_array_attribute(hid_t location, const std::string& name,
                                  const std::vector<std::string>& values);
void write_double_attribute(hid_t location, const std::string& name, double value);
void write_count_attribute(hid_t location, const std::string& name, std::uint64_t value);
// Booleans as h5py writes them, so numpy reads them as bool: an 8-bit enum FALSE/TRUE.
void write_bool_attribute(hid_t location, const std::string& name, bool value);
void write_bool_dataset(hid_t location, const std::string& name, const std::vector<bool>& values);
// A string-array attribute on the dataset `dataset` of `location` (e.g. its column names).
void write_dataset_names(hid_t location, const std::string& dataset, const std::string& attribute,
                         const std::vector<std::string>& names);

}  // namespace backsweep::detail
