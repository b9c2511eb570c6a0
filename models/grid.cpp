#include "models/grid.hpp"

#include <cmath>
#include <stdexcept>

namespace backsweep {

std::string_view to_string(Boundary boundary) {
  switch (boundary) {
    case Boundary::periodic: return "periodic";
    case Boundary::dirichlet: return "dirichlet";
    case Boundary::neumann: break;
  }
  return "neumann";
}

Grid::Grid(std::vector<std::size_t> shape, std::vector<double> extent, std::vector<Boundary> boundary)
    : shape_(std::move(shape)), extent_(std::move(extent)), boundary_(std::move(boundary)) {
  if (shape_.empty() || shape_.size() > kMaxAxes)
    throw std::invalid_argument("a grid has 1, 2 or 3 axes, not " + std::to_string(shape_.size()));
  if (extent_.size() != shape_.size() || boundary_.size() != shape_.size())
    throw std::invalid_argument("shape, extent and boundary must have one entry per axis");
  stride_.assign(axes(), 1);
  spacing_.resize(axes());
  for (std::size_t a = axes(); a-- > 0;) {
    if (shape_[a] == 0) throw std::invalid_argument("every axis needs at least one point");
    if (!(extent_[a] > 0) || !std::isfinite(extent_[a]))
      throw std::invalid_argument("every axis needs a finite, positive extent");
    if (a + 1 < axes()) stride_[a] = stride_[a + 1] * shape_[a + 1];
    const double n = double(shape_[a]);
    spacing_[a] = extent_[a] / (boundary_[a] == Boundary::dirichlet ? n + 1 : n);
  }
  points_ = stride_[0] * shape_[0];
  axes_.count = int(axes());
  for (std::size_t a = 0; a < axes(); ++a) {
    const double h = spacing_[a];
    axes_.axis[a] = {shape_[a], stride_[a], boundary_[a], 1.0 / (h * h), 0.5 / h};
  }
}

double Grid::coordinate(std::size_t axis, std::size_t i) const {
  switch (boundary_[axis]) {
    case Boundary::periodic: return double(i) * spacing_[axis];
    case Boundary::dirichlet: return double(i + 1) * spacing_[axis];
    case Boundary::neumann: break;
  }
  return (double(i) + 0.5) * spacing_[axis];
}

}  // namespace backsweep
