#pragma once
// Fields on a grid as VTK files that ParaView opens: one ImageData file (.vti, written by
// the VTK library) per time, with a point-data array per field, and a .pvd collection
// listing them with their times. A series is written whole or not at all: its .vti files
// go to a temporary folder that replaces <dir>/<name>/ in one rename, then the .pvd is
// renamed into place. A run split over ranks writes each time as partitioned ImageData
// instead: a .pvti naming one .vti piece per rank's block of planes (models/grid_block.hpp),
// which ParaView opens as one dataset.
#include <string>
#include <utility>
#include <vector>

#include "io/outputs/named_field.hpp"
#include "models/grid.hpp"

namespace backsweep {

struct FieldSnapshot {
  double time;
  std::vector<NamedField> fields;
};

// Writes <dir>/<name>.pvd and <dir>/<name>/<name>_<k>.vti for snapshot k; with `pieces`
// > 1, <dir>/<name>/<name>_<k>.pvti and its pieces <name>_<k>_<r>.vti, piece r holding
// block r's planes and the next block's first (ParaView joins pieces that share a plane).
// Throws std::runtime_error naming the path when a file cannot be written.
void write_vtk_series(const std::string& dir, const std::string& name, const Grid& grid,
                      const std::vector<FieldSnapshot>& snapshots, int pieces = 1);

}  // namespace backsweep
