#pragma once
// A field's values at every grid point (array order) and its name: what field outputs
// (HDF5 datasets, VTK arrays, JSON norms) are written from.
#include <string>
#include <vector>

namespace backsweep {

struct NamedField {
  std::string name;
  std::vector<double> values;
};

}  // namespace backsweep
