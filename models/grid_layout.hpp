#pragma once
// Where a grid model's numbers live, for configs, objectives and outputs: the state is
// field 0 at every grid point (array order), then field 1, ...; the parameters are the
// scalars, then parameter field 0 at every point, then 1, ... Models defined by
// equations (FieldEquations) and the built-in kernels (models/builtin/grid_kernels.hpp)
// share it, so everything above the model addresses both alike.
#include <concepts>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "models/grid.hpp"

namespace backsweep {

class GridLayout {
 public:
  GridLayout(Grid grid, std::vector<std::string> fields, std::vector<std::string> parameter_fields,
             std::size_t scalar_parameters)
      : grid_(std::move(grid)), fields_(std::move(fields)), parameter_fields_(std::move(parameter_fields)),
        scalars_(scalar_parameters) {}

  const Grid& grid() const { return grid_; }
  const std::vector<std::string>& fields() const { return fields_; }
  const std::vector<std::string>& parameter_fields() const { return parameter_fields_; }
  std::size_t scalar_parameters() const { return scalars_; }
  std::size_t state_size() const { return fields_.size() * grid_.points(); }
  std::size_t param_size() const { return scalars_ + parameter_fields_.size() * grid_.points(); }

 protected:
  Grid grid_;
  std::vector<std::string> fields_, parameter_fields_;
  std::size_t scalars_;
};

// A hand-written grid model's layout on a grid, with its scalar parameters' names and
// defaults (NaN where it has none, so a config must give them): each model's parts(grid).
struct GridKernelParts {
  GridLayout layout;
  std::vector<std::string> scalars;
  std::vector<double> defaults;
  bool takes_source = false;  // made with a point source (grid_kernels.hpp's takes_source)
};

// The grid a model's states lie on, or null for a model not on a grid: built-in grid
// kernels have grid(), models defined by equations have fields() (null for an ODE).
template <class M>
const Grid* grid_of(const M& model) {
  if constexpr (requires { { model.grid() } -> std::convertible_to<const Grid*>; }) return model.grid();
  else if constexpr (requires { { model.grid() } -> std::convertible_to<const Grid&>; }) return &model.grid();
  else if constexpr (requires { model.fields(); }) return model.fields() ? &model.fields()->grid() : nullptr;
  else return nullptr;
}

}  // namespace backsweep
