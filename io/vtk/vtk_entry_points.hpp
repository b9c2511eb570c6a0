#pragma once
// What the VTK module (libbacksweep_vtk_module.so, io/vtk/vtk_module.cpp) exports to the
// program, which loads it on its first VTK file (io/vtk/vtk_on_demand.cpp).
#include <string>
#include <vector>

#include "io/vtk/vti_reader.hpp"
#include "io/vtk/vtk_series.hpp"

namespace backsweep {

struct VtkEntryPoints {
  void (*write_series)(const std::string& dir, const std::string& name, const Grid& grid,
                       const std::vector<FieldSnapshot>& snapshots, int pieces);
  ImageArray (*read_array)(const std::string& path, const std::string& array);
};

// The module's one exported (extern "C") function returns its entry points.
inline constexpr const char* kVtkEntryPointsSymbol = "backsweep_vtk_entry_points";

}  // namespace backsweep
