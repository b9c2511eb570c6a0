#pragma once
// A field's values at every grid point from a file a config names:
// section.name = { file = "u0.h5", dataset = "u" } or { file = "u0.vti", array = "u" }.
#include <string>

#include "io/config/toml_reader.hpp"
#include "models/grid.hpp"

namespace backsweep::detail {

// Reads the HDF5 dataset or VTK ImageData point array (default name: the field's) into
// values, the file relative to the config's folder; fails at section.name, saying what is
// wrong (no file, another shape, a value that is not finite).
void read_field_file(const TomlSection& section, const std::string& name, const toml::table& source,
                     const Grid& grid, const std::string& config_file, double* values);

}  // namespace backsweep::detail
