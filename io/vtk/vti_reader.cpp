#include "io/vtk/vti_reader.hpp"

#include <string>

#include <vtkCallbackCommand.h>
#include <vtkCommand.h>
#include <vtkDataArray.h>
#include <vtkImageData.h>
#include <vtkNew.h>
#include <vtkObject.h>
#include <vtkPointData.h>
#include <vtkXMLImageDataReader.h>

namespace backsweep {
namespace {

// The reader reports a file it cannot parse by an error event, not by GetErrorCode()
// (and, with an observer, prints nothing itself): keeps the first message's text, without VTK's "ERROR: In <file>, line <n>" and
// "vtkXMLImageDataReader (0x...): " prefixes.
void keep_first_error(vtkObject*, unsigned long, void* kept, void* message) {
  auto& text = *static_cast<std::string*>(kept);
  if (!text.empty() || !message) return;
  text = static_cast<const char*>(message);
  if (const auto at = text.rfind("): "); at != std::string::npos) text.erase(0, at + 3);
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  if (text.empty()) text = "unreadable";
}

}  // namespace

ImageArray read_vti_array(const std::string& path, const std::string& array) {
  ImageArray result;
  vtkNew<vtkXMLImageDataReader> reader;
  const bool readable = reader->CanReadFile(path.c_str()) != 0;
  std::string error;
  if (readable) {
    vtkNew<vtkCallbackCommand> on_error;
    on_error->SetCallback(keep_first_error);
    on_error->SetClientData(&error);
    reader->AddObserver(vtkCommand::ErrorEvent, on_error);
    reader->SetFileName(path.c_str());
    reader->Update();
  }
  vtkImageData* image = readable ? reader->GetOutput() : nullptr;
  if (!image || !error.empty() || reader->GetErrorCode() != 0) {
    result.problem = "cannot read " + path + " as VTK ImageData (.vti)";
    if (!error.empty()) result.problem += ": " + error;
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
