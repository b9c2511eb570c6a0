#pragma once
// Readers of field files in formats whose library backsweep::io does not link: VTK
// ImageData (.vti) is read by the VTK library in backsweep::vtk, which a program that
// links it installs (install_vti_reader(), io/vtk/vti_reader.hpp). Config files name such
// files for initial fields and parameter fields; without a reader installed they are
// refused by key.
#include <array>
#include <cstddef>
#include <string>
#include <vector>

namespace backsweep {

// One point-data array of an image file: its points per axis in VTK's order (x, y, z;
// 1 for an axis the image lacks) and its values with x fastest. `problem` is empty when
// it was read, else says why not (and names the arrays the file has).
struct ImageArray {
  std::array<std::size_t, 3> dimensions{1, 1, 1};
  std::vector<double> values;
  std::string problem;
};

using VtiReader = ImageArray (*)(const std::string& path, const std::string& array);

void set_vti_reader(VtiReader reader);
VtiReader vti_reader();  // null where none is installed

}  // namespace backsweep
