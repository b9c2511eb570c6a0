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

BlockedHeat::BlockedHeat(GridBlock block) : block_(std::move(block)), axes_(block_.grid().stencil_axes()) {
  const std::size_t ghosts = (block_.below() >= 0 ? 1 : 0) + (block_.above() >= 0 ? 1 : 0);
  if (block_.grid().axes() > 1) axes_.axis[0].size = block_.planes() + ghosts;
  padded_points_ = block_.points() + ghosts * block_.plane_points();
}

void BlockedHeat::vjp(double, const double* u, const double* k, const double* lambda, double* vjp_u,
                      double* vjp_k) const {
  Padded<double>& padded = padded_;
  pad(u, padded.u);
  pad(k, padded.k);
  pad(lambda, padded.lambda);
  padded.out_u.resize(padded_points_);
  padded.out_k.resize(padded_points_);
  const Heat::PointKernel kernel{axes_};
  for_each_owned_point([&](std::size_t point, const GridPosition& at) {
    kernel.vjp(point, at, padded.u.data(), padded.k.data(), padded.lambda.data(), padded.out_u.data(),
               vjp_k ? padded.out_k.data() : nullptr);
  });
  unpad(padded.out_u, vjp_u);
  if (vjp_k) unpad(padded.out_k, vjp_k);
}

}  // namespace backsweep::models
