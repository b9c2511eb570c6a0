#include "io/vtk/vtk_series.hpp"

#include <filesystem>
#include <fstream>
#include <stdexcept>

#include <unistd.h>
#include <vtkDoubleArray.h>
#include <vtkImageData.h>
#include <vtkNew.h>
#include <vtkPointData.h>
#include <vtkXMLImageDataWriter.h>

#include "platform/atomic_file.hpp"

namespace backsweep {

namespace {

namespace fs = std::filesystem;

// VTK's x, y, z are our array order reversed (x varies fastest in both).
void write_vti(const fs::path& path, const Grid& grid, const std::vector<NamedField>& fields) {
  vtkNew<vtkImageData> image;
  int dimensions[3] = {1, 1, 1};
  double spacing[3] = {1, 1, 1}, origin[3] = {0, 0, 0};
  for (std::size_t a = 0; a < grid.axes(); ++a) {
    const std::size_t v = grid.axes() - 1 - a;
    dimensions[v] = int(grid.size(a));
    spacing[v] = grid.spacing(a);
    origin[v] = grid.coordinate(a, 0);
  }
  image->SetDimensions(dimensions);
  image->SetSpacing(spacing);
  image->SetOrigin(origin);
  for (const NamedField& field : fields) {
    if (field.values.size() != grid.points())
      throw std::logic_error("write_vtk_series: field " + field.name + " does not match the grid");
    vtkNew<vtkDoubleArray> array;
    array->SetName(field.name.c_str());
    array->SetNumberOfTuples(vtkIdType(grid.points()));
    for (std::size_t i = 0; i < grid.points(); ++i) array->SetValue(vtkIdType(i), field.values[i]);
    image->GetPointData()->AddArray(array);
  }
  vtkNew<vtkXMLImageDataWriter> writer;
  writer->SetFileName(path.c_str());
  writer->SetInputData(image);
  if (writer->Write() != 1) throw std::runtime_error("cannot write " + path.string());
}

}  // namespace

void write_vtk_series(const std::string& dir, const std::string& name, const Grid& grid,
                      const std::vector<FieldSnapshot>& snapshots) {
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
      const std::string file = name + "_" + std::to_string(k) + ".vti";
      write_vti(staging / file, grid, snapshots[k].fields);
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
