// The VTK module: write_vtk_series and read_vti_array behind one exported function, so
// the program links VTK's libraries only when it loads this (io/vtk/vtk_on_demand.cpp).
#include "io/vtk/vtk_entry_points.hpp"

extern "C" __attribute__((visibility("default"))) const backsweep::VtkEntryPoints* backsweep_vtk_entry_points() {
  static constexpr backsweep::VtkEntryPoints points{&backsweep::write_vtk_series, &backsweep::read_vti_array};
  return &points;
}
