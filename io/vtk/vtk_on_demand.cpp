// The program's VTK functions: the first call loads the VTK module (io/vtk/vtk_module.cpp)
// and each calls the module's. Linking VTK's libraries into the program instead cost
// every start of it, VTK files or not, 16M instructions of symbol relocations (3 ms; a
// 10^5-step Lorenz-63 gradient takes about 40). The module is looked for where `cmake
// --install` puts it beside the program, then where the build made it.
#include <dlfcn.h>

#include <filesystem>
#include <stdexcept>
#include <string>

#include "io/vtk/vtk_entry_points.hpp"

namespace backsweep {
namespace {

const VtkEntryPoints* load_vtk_module() {
  std::error_code ignored;
  const std::filesystem::path program = std::filesystem::read_symlink("/proc/self/exe", ignored);
  std::string tried;
  const std::filesystem::path installed = (program.parent_path() / BACKSWEEP_VTK_MODULE_INSTALLED).lexically_normal();
  for (const std::filesystem::path& module : {installed, std::filesystem::path(BACKSWEEP_VTK_MODULE_BUILT)}) {
    if (!std::filesystem::exists(module, ignored)) {
      tried += (tried.empty() ? "" : ", ") + module.string();
      continue;
    }
    void* handle = dlopen(module.c_str(), RTLD_NOW | RTLD_LOCAL);  // kept open until the program exits
    if (!handle) throw std::runtime_error(std::string("cannot load the VTK module: ") + dlerror());
    using EntryPoints = const VtkEntryPoints* (*)();
    if (auto entry = reinterpret_cast<EntryPoints>(dlsym(handle, kVtkEntryPointsSymbol))) return entry();
    throw std::runtime_error("the VTK module " + module.string() + " lacks " + kVtkEntryPointsSymbol);
  }
  throw std::runtime_error("VTK files need the VTK module, which is not installed (looked for " + tried + ")");
}

const VtkEntryPoints& vtk_module() {
  static const VtkEntryPoints* const points = load_vtk_module();  // once, whichever thread asks first
  return *points;
}

}  // namespace

void write_vtk_series(const std::string& dir, const std::string& name, const Grid& grid,
                      const std::vector<FieldSnapshot>& snapshots, int pieces) {
  vtk_module().write_series(dir, name, grid, snapshots, pieces);
}

ImageArray read_vti_array(const std::string& path, const std::string& array) {
  return vtk_module().read_array(path, array);
}

void install_vti_reader() { set_vti_reader(&read_vti_array); }

}  // namespace backsweep
