#include "io/vtk/vtk_series.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <unistd.h>
#include <vtkDoubleArray.h>
#include <vtkImageData.h>
#include <vtkNew.h>
#include <vtkPointData.h>
#include <vtkXMLImageDataWriter.h>

#include "models/grid_block.hpp"
#include "platform/atomic_file.hpp"

namespace backsweep {

namespace {

namespace fs = std::filesystem;

// A part of a grid: the planes [first, end) along its slowest axis.
struct Planes {
  std::size_t first, end;
};

// VTK's x, y, z are our array order reversed (x varies fastest in both). The extent of
// `planes` in VTK's indices, and the whole grid's origin and spacing.
struct ImageGeometry {
  int extent[6] = {0, 0, 0, 0, 0, 0};
  double spacing[3] = {1, 1, 1}, origin[3] = {0, 0, 0};

  ImageGeometry(const Grid& grid, Planes planes) {
    for (std::size_t a = 0; a < grid.axes(); ++a) {
      const std::size_t v = grid.axes() - 1 - a;
      extent[2 * v + 1] = int(grid.size(a)) - 1;
      spacing[v] = grid.spacing(a);
      origin[v] = grid.coordinate(a, 0);
    }
    if (grid.axes() == 1) return;  // one plane: the whole line
    const std::size_t slowest = grid.axes() - 1;
    extent[2 * slowest] = int(planes.first);
    extent[2 * slowest + 1] = int(planes.end) - 1;
  }
};

Planes all_planes(const Grid& grid) { return {0, GridBlock(grid, 0, 1).planes()}; }

void write_vti(const fs::path& path, const Grid& grid, const std::vector<NamedField>& fields, Planes planes) {
  const ImageGeometry geometry(grid, planes);
  const std::size_t plane = GridBlock(grid, 0, 1).plane_points(), begin = planes.first * plane,
                    points = (planes.end - planes.first) * plane;
  vtkNew<vtkImageData> image;
  image->SetExtent(const_cast<int*>(geometry.extent));
  image->SetSpacing(geometry.spacing);
  image->SetOrigin(geometry.origin);
  for (const NamedField& field : fields) {
    if (field.values.size() != grid.points())
      throw std::logic_error("write_vtk_series: field " + field.name + " does not match the grid");
    vtkNew<vtkDoubleArray> array;
    array->SetName(field.name.c_str());
    array->SetNumberOfTuples(vtkIdType(points));
    for (std::size_t i = 0; i < points; ++i) array->SetValue(vtkIdType(i), field.values[begin + i]);
    image->GetPointData()->AddArray(array);
  }
  vtkNew<vtkXMLImageDataWriter> writer;
  writer->SetFileName(path.c_str());
  writer->SetInputData(image);
  if (writer->Write() != 1) throw std::runtime_error("cannot write " + path.string());
}

std::string extent_text(const ImageGeometry& geometry) {
  std::ostringstream text;
  for (int k = 0; k < 6; ++k) text << (k ? " " : "") << geometry.extent[k];
  return text.str();
}

// <stem>.pvti in `folder` and its pieces <stem>_<r>.vti, a block of planes each.
void write_pvti(const fs::path& folder, const std::string& stem, const Grid& grid,
                const std::vector<NamedField>& fields, int pieces) {
  const ImageGeometry whole(grid, all_planes(grid));
  std::ofstream out(folder / (stem + ".pvti"));
  out.precision(17);
  out << "<?xml version=\"1.0\"?>\n<VTKFile type=\"PImageData\" version=\"0.1\" byte_order=\"LittleEndian\">\n"
      << "  <PImageData WholeExtent=\"" << extent_text(whole) << "\" GhostLevel=\"0\" Origin=\"" << whole.origin[0]
      << " " << whole.origin[1] << " " << whole.origin[2] << "\" Spacing=\"" << whole.spacing[0] << " "
      << whole.spacing[1] << " " << whole.spacing[2] << "\">\n    <PPointData>\n";
  for (const NamedField& field : fields)
    out << "      <PDataArray type=\"Float64\" Name=\"" << field.name << "\"/>\n";
  out << "    </PPointData>\n";
  for (int r = 0; r < pieces; ++r) {
    const GridBlock block(grid, r, pieces);
    const Planes planes{block.first_plane(),
                        std::min(block.first_plane() + block.planes() + 1, all_planes(grid).end)};
    const std::string piece = stem + "_" + std::to_string(r) + ".vti";
    write_vti(folder / piece, grid, fields, planes);
    out << "    <Piece Extent=\"" << extent_text(ImageGeometry(grid, planes)) << "\" Source=\"" << piece << "\"/>\n";
  }
  out << "  </PImageData>\n</VTKFile>\n";
  out.close();
  if (!out) throw std::runtime_error("cannot write " + (folder / (stem + ".pvti")).string());
}

}  // namespace

void write_vtk_series(const std::string& dir, const std::string& name, const Grid& grid,
                      const std::vector<FieldSnapshot>& snapshots, int pieces) {
  const fs::path folder = fs::path(dir) / name;
  const fs::path staging = fs::path(dir) / ("." + name + ".tmp-" + std::to_string(getpid()));
  fs::remove_all(staging);
  fs::create_directories(staging);
  try {
    AtomicFile pvd(fs::path(dir) / (name + ".pvd"));
    std::ofstream out(pvd.temporary());
    out << "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"0.1\">\n  <Collection>\n";
    out.precision(17);
    for (std::size_t k = 0; k < snapshots.size(); ++k) {
      const std::string stem = name + "_" + std::to_string(k);
      const std::string file = stem + (pieces > 1 ? ".pvti" : ".vti");
      if (pieces > 1) write_pvti(staging, stem, grid, snapshots[k].fields, pieces);
      else write_vti(staging / file, grid, snapshots[k].fields, all_planes(grid));
      out << "    <DataSet timestep=\"" << snapshots[k].time << "\" file=\"" << name << "/" << file << "\"/>\n";
    }
    out << "  </Collection>\n</VTKFile>\n";
    out.close();
    if (!out) throw std::runtime_error("cannot write " + (fs::path(dir) / (name + ".pvd")).string());
    // The old series goes only once the new one is complete.
    fs::remove_all(folder);
    fs::rename(staging, folder);
    pvd.commit();
  } catch (...) {
    std::error_code ignored;
    fs::remove_all(staging, ignored);
    throw;
  }
}

}  // namespace backsweep
