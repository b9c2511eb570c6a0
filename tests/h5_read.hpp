#pragma once
// Reads back what backsweep writes to HDF5, in tests.
#include <hdf5.h>

#include <string>
#include <vector>

#include <doctest/doctest.h>

// Every value of a dataset of doubles, in array order.
inline std::vector<double> read_dataset(hid_t location, const char* name) {
  const hid_t data = H5Dopen2(location, name, H5P_DEFAULT);
  REQUIRE(data >= 0);
  const hid_t space = H5Dget_space(data);
  std::vector<double> values(std::size_t(H5Sget_simple_extent_npoints(space)));
  CHECK(H5Dread(data, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) >= 0);
  H5Sclose(space);
  H5Dclose(data);
  return values;
}

// A string attribute as backsweep writes them (variable-length UTF-8), checking that it
// is stored so.
inline std::string read_text_attribute(hid_t location, const char* name) {
  const hid_t attribute = H5Aopen(location, name, H5P_DEFAULT);
  REQUIRE(attribute >= 0);
  const hid_t stored = H5Aget_type(attribute);
  CHECK(H5Tis_variable_str(stored) > 0);
  CHECK(H5Tget_cset(stored) == H5T_CSET_UTF8);
  const hid_t type = H5Tcopy(H5T_C_S1);
  H5Tset_size(type, H5T_VARIABLE);
  H5Tset_cset(type, H5T_CSET_UTF8);
  char* text = nullptr;
  REQUIRE(H5Aread(attribute, type, &text) >= 0);
  std::string value = text ? text : "";
  H5free_memory(text);
  H5Tclose(type);
  H5Tclose(stored);
  H5Aclose(attribute);
  return value;
}
