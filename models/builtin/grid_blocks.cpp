#include "models/builtin/grid_blocks.hpp"

#include <algorithm>

namespace backsweep::models {

void BlockedGrayScott::vjp(double, const double* y, const double* p, const double* lambda, double* vjp_y,
                           double* vjp_p) const {
  const Grid& grid = block_.grid();
  row_sums_.resize(4 * block_.points() / grid.size(grid.axes() - 1));
  gray_scott_vjp(grid, planes_of(lambda, ghosts_), y, p, lambda, vjp_y, row_sums_.data());
  if (vjp_p) block_.fold_rows(row_sums_, 4, vjp_p);
}

}  // namespace backsweep::models
