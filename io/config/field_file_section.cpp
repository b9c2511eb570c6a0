#include "io/config/field_file_section.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <vector>

#include <hdf5.h>

#include "io/config/field_file_readers.hpp"

namespace backsweep::detail {

namespace {

std::string shape_text(const std::vector<hsize_t>& shape) {
  std::string text = "[";
  for (std::size_t a = 0; a < shape.size(); ++a) {
    if (a > 0) text += ", ";
    text += std::to_string(shape[a]);  // appended: GCC 12 misreports ", " + string (-Wrestrict)
  }
  return text + "]";
}

// A field from an HDF5 dataset shaped like the grid; empty, or what is wrong.
std::string read_hdf5_field(const std::filesystem::path& path, const std::string& dataset, const Grid& grid,
                            double* values) {
  H5E_auto2_t printer = nullptr;  // HDF5's own error stack stays quiet: our message says it
  void* printer_data = nullptr;
  H5Eget_auto2(H5E_DEFAULT, &printer, &printer_data);
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  std::string problem;
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  const hid_t set = file < 0 ? -1 : H5Dopen2(file, dataset.c_str(), H5P_DEFAULT);
  const hid_t space = set < 0 ? -1 : H5Dget_space(set);
  std::vector<hsize_t> shape(space < 0 ? 0 : std::size_t(std::max(0, H5Sget_simple_extent_ndims(space))));
  if (space >= 0) H5Sget_simple_extent_dims(space, shape.data(), nullptr);
  const std::vector<hsize_t> expected(grid.shape().begin(), grid.shape().end());
  if (file < 0) problem = "cannot open " + path.string() + " as HDF5";
  else if (set < 0) problem = "no dataset '" + dataset + "' in " + path.string();
  else if (shape != expected)
    problem = "dataset '" + dataset + "' has shape " + shape_text(shape) + "; the grid's is " + shape_text(expected);
  else if (H5Dread(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values) < 0)
    problem = "cannot read dataset '" + dataset + "' as numbers";
  if (space >= 0) H5Sclose(space);
  if (set >= 0) H5Dclose(set);
  if (file >= 0) H5Fclose(file);
  H5Eset_auto2(H5E_DEFAULT, printer, printer_data);
  return problem;
}

// A field from a point array of a VTK ImageData file with the grid's points per axis
// (VTK's x, y, z are the grid's axes in reverse; x varies fastest in both); empty, or
// what is wrong.
std::string read_vti_field(const std::filesystem::path& path, const std::string& array, const Grid& grid,
                           double* values) {
  const VtiReader reader = vti_reader();
  if (!reader) return "this program cannot read .vti files (it does not link backsweep::vtk)";
  const ImageArray image = reader(path.string(), array);
  if (!image.problem.empty()) return image.problem;
  std::vector<hsize_t> shape;
  for (std::size_t v = 3; v-- > 0;)
    if (v < grid.axes() || image.dimensions[v] != 1) shape.push_back(image.dimensions[v]);
  const std::vector<hsize_t> expected(grid.shape().begin(), grid.shape().end());
  if (shape != expected)
    return "point array '" + array + "' has shape " + shape_text(shape) + "; the grid's is " + shape_text(expected);
  if (image.values.size() != grid.points())
    return "point array '" + array + "' holds " + std::to_string(image.values.size()) + " values for " +
           std::to_string(grid.points()) + " points";
  std::copy(image.values.begin(), image.values.end(), values);
  return "";
}

}  // namespace

void read_field_file(const TomlSection& section, const std::string& name, const toml::table& source,
                     const Grid& grid, const std::string& config_file, double* values) {
  const TomlSection from(source, section.position(name).file, section.key_name(name));
  from.reject_unknown_keys({"file", "dataset", "array"});
  if (!from.has("file"))
    section.fail(name, "needs file = \"...h5\" or \"...vti\" (and dataset or array, default the field's name)");
  const std::filesystem::path path =
      (std::filesystem::path(config_file).parent_path() / from.string("file", "")).lexically_normal();
  if (!std::filesystem::is_regular_file(path)) section.fail(name, "no such file: " + path.string());
  std::string extension = path.extension().string();
  for (char& c : extension) c = char(std::tolower(static_cast<unsigned char>(c)));
  const bool vti = extension == ".vti";
  if (vti && from.has("dataset"))
    from.fail("dataset", "is for HDF5 files; a .vti file names its point array: array = \"...\"");
  if (!vti && from.has("array")) from.fail("array", "is for .vti files; an HDF5 file names its dataset: dataset = \"...\"");
  const std::string source_name = vti ? from.string("array", name) : from.string("dataset", name);
  const std::string problem =
      vti ? read_vti_field(path, source_name, grid, values) : read_hdf5_field(path, source_name, grid, values);
  if (!problem.empty()) section.fail(name, problem);
  for (std::size_t point = 0; point < grid.points(); ++point)
    if (!std::isfinite(values[point])) {
      std::string what = vti ? "point array '" : "dataset '";
      what += source_name;  // appended: GCC 12 misreports "..." + string (-Wrestrict)
      section.fail(name, what + "' holds " + std::to_string(values[point]) + " at point " + std::to_string(point));
    }
}

}  // namespace backsweep::detail
