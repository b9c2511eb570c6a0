#pragma once
// Reads a string attribute as backsweep writes them (variable-length UTF-8), checking
// that it is stored so.
#include <hdf5.h>

#include <string>

#include <doctest/doctest.h>

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
