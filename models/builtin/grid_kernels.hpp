#pragma once
// The hand-written grid models by name, for config files (model.name on a [grid]): each
// with its layout (fields, parameter fields, scalar parameters), so a config gives their
// values, initial fields and objectives as it does for a model defined by equations.
#include <array>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "models/builtin/acoustic.hpp"
#include "models/builtin/advection_diffusion.hpp"
#include "models/builtin/gray_scott.hpp"
#include "models/builtin/heat.hpp"
#include "models/grid_layout.hpp"

namespace backsweep::models {

inline constexpr std::array<std::string_view, 4> grid_kernel_names{GrayScott::name, Heat::name,
                                                                   AdvectionDiffusion::name, Acoustic::name};

// A kernel as a config names it: its name, layout and (acoustic only) source.
struct GridKernel {
  std::string name;
  GridLayout layout;
  AcousticSource source{};
};

// What kernel `name` has on `grid`: its layout, scalar parameters' names and defaults
// (NaN where it has none, so a config must give them); nullopt for an unknown name.
struct GridKernelParts {
  GridLayout layout;
  std::vector<std::string> scalars;
  std::vector<double> defaults;
};

inline std::optional<GridKernelParts> grid_kernel_parts(std::string_view name, const Grid& grid) {
  const auto strings = [](const auto& names) { return std::vector<std::string>(names.begin(), names.end()); };
  if (name == GrayScott::name)
    return GridKernelParts{GridLayout(grid, strings(GrayScott::field_names), {}, GrayScott::param_names.size()),
                           strings(GrayScott::param_names),
                           {GrayScott::default_params.begin(), GrayScott::default_params.end()}};
  if (name == Heat::name) return GridKernelParts{GridLayout(grid, {"u"}, {"k"}, 0), {}, {}};
  if (name == AdvectionDiffusion::name) {
    std::vector<std::string> scalars = AdvectionDiffusion(grid).param_names();
    const std::size_t count = scalars.size();
    return GridKernelParts{GridLayout(grid, {"u"}, {}, count), std::move(scalars),
                           std::vector<double>(count, std::numeric_limits<double>::quiet_NaN())};
  }
  if (name == Acoustic::name) return GridKernelParts{GridLayout(grid, {"p", "q"}, {"c"}, 0), {}, {}};
  return std::nullopt;
}

// visitor(model) with the kernel `kernel` names on its grid; false for an unknown name.
template <class Visitor>
bool visit_grid_kernel(const GridKernel& kernel, Visitor&& visitor) {
  const Grid& grid = kernel.layout.grid();
  if (kernel.name == GrayScott::name) visitor(GrayScott(grid));
  else if (kernel.name == Heat::name) visitor(Heat(grid));
  else if (kernel.name == AdvectionDiffusion::name) visitor(AdvectionDiffusion(grid));
  else if (kernel.name == Acoustic::name) visitor(Acoustic(grid, kernel.source));
  else return false;
  return true;
}

}  // namespace backsweep::models
