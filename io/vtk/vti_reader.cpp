#include "io/vtk/vti_reader.hpp"

#include <vtkDataArray.h>
#include <vtkImageData.h>
#include <vtkNew.h>
#include <vtkObject.h>
#include <vtkPointData.h>
#include <vtkXMLImageDataReader.h>

namespace backsweep {

ImageArray read_vti_array(const std::string& path, const std::string& array) {
  ImageArray result;
  vtkNew<vtkXMLImageDataReader> reader;
  // VTK's own messages go to stderr; ours says what went wrong, by key.
  const bool warnings = vtkObject::GetGlobalWarningDisplay();
  vtkObject::GlobalWarningDisplayOff();
  const bool readable = reader->CanReadFile(path.c_str()) != 0;
  if (readable) {
    reader->SetFileName(path.c_str());
    reader->Update();
  }
  vtkObject::SetGlobalWarningDisplay(warnings);
  vtkImageData* image = readable ? reader->GetOutput() : nullptr;
  if (!image || reader->GetErrorCode() != 0) {
    result.problem = "cannot read " + path + " as VTK ImageData (.vti)";
    return result;
  }
  vtkPointData* points = image->GetPointData();
  vtkDataArray* data = points->GetArray(array.c_str());
  if (!data) {
    std::string names;
    for (int i = 0; i < points->GetNumberOfArrays(); ++i) {
      names += i > 0 ? ", " : "";
      names += points->GetArrayName(i) ? points->GetArrayName(i) : "?";
    }
    result.problem = "no point array '" + array + "' in " + path + " (it has: " + (names.empty() ? "none" : names) + ")";
    return result;
  }
  if (data->GetNumberOfComponents() != 1) {
    result.problem = "point array '" + array + "' has " + std::to_string(data->GetNumberOfComponents()) +
                     " components; a field has one";
    return result;
  }
  const int* dimensions = image->GetDimensions();
  for (int a = 0; a < 3; ++a) result.dimensions[a] = std::size_t(dimensions[a] > 0 ? dimensions[a] : 0);
  result.values.resize(std::size_t(data->GetNumberOfTuples()));
  for (vtkIdType i = 0; i < data->GetNumberOfTuples(); ++i) result.values[std::size_t(i)] = data->GetComponent(i, 0);
  return result;
}

void install_vti_reader() { set_vti_reader(&read_vti_array); }

}  // namespace backsweep
