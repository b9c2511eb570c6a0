#pragma once
// Fields read from VTK ImageData files (.vti, as ParaView, PyVista or backsweep write
// them: ASCII, binary, appended or compressed), by the VTK library.
#include <string>

#include "io/config/field_file_readers.hpp"

namespace backsweep {

// The point-data array `array` of the .vti file at `path`, one component.
ImageArray read_vti_array(const std::string& path, const std::string& array);

// Lets config files name .vti files (set_vti_reader(read_vti_array)).
void install_vti_reader();

}  // namespace backsweep
