#include "io/outputs/detail/hdf5_handle.hpp"

#include "platform/printable.hpp"
#include "platform/run_info.hpp"

#include <stdexcept>

namespace backsweep::detail {

Hdf5Handle::Hdf5Handle(hid_t id, Closer close, const std::string& what)
    : id_(id), close_(close), what_(what) {
  if (id_ < 0) throw std::runtime_error("HDF5: cannot " + what);
}

Hdf5Handle::~Hdf5Handle() {
  if (id_ >= 0) close_(id_);
}

void Hdf5Handle::close() {
  const herr_t status = close_(id_);
  id_ = -1;
  if (status < 0) throw std::runtime_error("HDF5: cannot finish (" + what_ + ")");
}

namespace {
void check(herr_t status, const std::string& what) {
  if (status < 0) throw std::runtime_error("HDF5: cannot " + what);
}
}  // namespace

namespace {
void write_dataset(hid_t location, const std::string& name, const std::vector<hsize_t>& shape,
                   hid_t type, const void* data) {
  Hdf5Handle space(H5Screate_simple(int(shape.size()), shape.data(), nullptr), H5Sclose,
                   "create dataspace for " + name);
  Hdf5Handle set(H5Dcreate2(location, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT,
                            H5P_DEFAULT),
                 H5Dclose, "create dataset " + name);
  if (!data) return;  // an empty dataset (HDF5 refuses a null buffer)
  check(H5Dwrite(set, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), "write dataset " + name);
}
}  // namespace

void write_double_dataset(hid_t location, const std::string& name,
                          const std::vector<hsize_t>& shape, const double* data) {
  write_dataset(location, name, shape, H5T_NATIVE_DOUBLE, data);
}

void write_count_dataset(hid_t location, const std::string& name,
                         const std::vector<hsize_t>& shape, const std::size_t* data) {
  static_assert(sizeof(std::size_t) == sizeof(unsigned long long));
  write_dataset(location, name, shape, H5T_NATIVE_ULLONG, data);
}

Hdf5Handle create_group(hid_t location, const std::string& name) {
  return Hdf5Handle(H5Gcreate2(location, name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                    H5Gclose, "create group " + name);
}

void write_dataset_names(hid_t location, const std::string& dataset, const std::string& attribute,
                         const std::vector<std::string>& names) {
  Hdf5Handle set(H5Dopen2(location, dataset.c_str(), H5P_DEFAULT), H5Dclose, "open " + dataset);
  write_string_array_attribute(set, attribute, names);
}

void write_string_array_attribute(hid_t location, const std::string& name,
                                  const std::vector<std::string>& values) {
  std::vector<std::string> shown;  // labelled UTF-8: made so
  for (const std::string& value : values) shown.push_back(printable(value));
  std::vector<const char*> pointers;
  for (const std::string& value : shown) pointers.push_back(value.c_str());
  const hsize_t size = values.size();
  Hdf5Handle type(H5Tcopy(H5T_C_S1), H5Tclose, "copy string type");
  check(H5Tset_size(type, H5T_VARIABLE), "make a variable-length string type");
  check(H5Tset_cset(type, H5T_CSET_UTF8), "set UTF-8 strings");
  Hdf5Handle space(H5Screate_simple(1, &size, nullptr), H5Sclose, "create dataspace");
  Hdf5Handle attribute(H5Acreate2(location, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT),
                       H5Aclose, "create attribute " + name);
  if (values.empty()) return;  // HDF5 refuses a null buffer, even for no strings
  check(H5Awrite(attribute, type, pointers.data()), "write attribute " + name);
}

void write_string_attribute(hid_t location, const std::string& name, const std::string& value) {
  Hdf5Handle type(H5Tcopy(H5T_C_S1), H5Tclose, "copy string type");
  check(H5Tset_size(type, H5T_VARIABLE), "make a variable-length string type");
  check(H5Tset_cset(type, H5T_CSET_UTF8), "set UTF-8 strings");
  Hdf5Handle space(H5Screate(H5S_SCALAR), H5Sclose, "create scalar dataspace");
  Hdf5Handle attribute(H5Acreate2(location, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT),
                       H5Aclose, "create attribute " + name);
  const std::string shown = printable(value);  // labelled UTF-8: made so
  const char* text = shown.c_str();
  check(H5Awrite(attribute, type, &text), "write attribute " + name);
}

void write_count_attribute(hid_t location, const std::string& name, std::uint64_t value) {
  Hdf5Handle space(H5Screate(H5S_SCALAR), H5Sclose, "create scalar dataspace");
  Hdf5Handle attribute(H5Acreate2(location, name.c_str(), H5T_STD_U64LE, space, H5P_DEFAULT, H5P_DEFAULT),
                       H5Aclose, "create attribute " + name);
  check(H5Awrite(attribute, H5T_NATIVE_UINT64, &value), "write attribute " + name);
}

namespace {

// Booleans as h5py writes them (and numpy reads them): an 8-bit enum FALSE = 0, TRUE = 1.
Hdf5Handle boolean_type() {
  Hdf5Handle type(H5Tenum_create(H5T_NATIVE_INT8), H5Tclose, "create boolean type");
  const std::int8_t no = 0, yes = 1;
  check(H5Tenum_insert(type, "FALSE", &no), "name FALSE");
  check(H5Tenum_insert(type, "TRUE", &yes), "name TRUE");
  return type;
}

}  // namespace

void write_bool_attribute(hid_t location, const std::string& name, bool value) {
  Hdf5Handle type = boolean_type();
  Hdf5Handle space(H5Screate(H5S_SCALAR), H5Sclose, "create scalar dataspace");
  Hdf5Handle attribute(H5Acreate2(location, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT),
                       H5Aclose, "create attribute " + name);
  const std::int8_t stored = value;
  check(H5Awrite(attribute, type, &stored), "write attribute " + name);
}

void write_bool_dataset(hid_t location, const std::string& name, const std::vector<bool>& values) {
  const std::vector<std::int8_t> stored(values.begin(), values.end());
  Hdf5Handle type = boolean_type();
  write_dataset(location, name, {values.size()}, type, stored.data());
}

void write_double_attribute(hid_t location, const std::string& name, double value) {
  Hdf5Handle space(H5Screate(H5S_SCALAR), H5Sclose, "create scalar dataspace");
  Hdf5Handle attribute(H5Acreate2(location, name.c_str(), H5T_NATIVE_DOUBLE, space,
                                  H5P_DEFAULT, H5P_DEFAULT),
                       H5Aclose, "create attribute " + name);
  check(H5Awrite(attribute, H5T_NATIVE_DOUBLE, &value), "write attribute " + name);
}

Hdf5Handle create_result_file(const std::string& temporary, const std::string& path, const RunInfo& run) {
  // The 1.8 format keeps large attributes (a long config) densely; the earliest caps them at 64 KiB.
  Hdf5Handle access(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, "set up " + path);
  check(H5Pset_libver_bounds(access, H5F_LIBVER_V18, H5F_LIBVER_LATEST), "choose the file format of " + path);
  Hdf5Handle h5(H5Fcreate(temporary.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, access), H5Fclose, "create " + path);
  if (!run.version.empty()) {
    write_string_attribute(h5, "backsweep_version", run.version);
    write_string_attribute(h5, "run_id", run.run_id);
    write_string_attribute(h5, "started", run.started);
    write_string_attribute(h5, "config_file", run.config_file);
    write_string_attribute(h5, "config", run.config_text);
    write_string_array_attribute(h5, "overrides", run.overrides);
    write_count_attribute(h5, "ranks", std::uint64_t(run.ranks));
  }
  return h5;
}

}  // namespace backsweep::detail
