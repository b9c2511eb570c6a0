#include "models/equations_block.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

namespace backsweep::models {

namespace {

const CompiledFieldKernel& compiled_kernel_of(const ExpressionModel& model) {
  const auto* kernel = dynamic_cast<const CompiledFieldKernel*>(model.compiled());
  if (!kernel || !model.fields()) throw std::invalid_argument("a grid split runs the equations' compiled kernels");
  return *kernel;
}

}  // namespace

BlockedEquations::BlockedEquations(const ExpressionModel& model, GridBlock block)
    : model_(model), block_(std::move(block)), fields_(model.fields()->fields().size()),
      scalars_(model.fields()->scalar_parameters()), parameter_fields_(model.fields()->parameter_fields().size()),
      ghosts_below_(block_.below() >= 0 ? kGhostPlanes : 0), padded_points_(padded_planes() * block_.plane_points()),
      kernel_(compiled_kernel_of(model).on_planes(block_.first_plane() + block_.grid().size(0) - ghosts_below_,
                                                  padded_planes())) {
  if (block_.planes() < kGhostPlanes)
    throw std::invalid_argument("a block of " + std::to_string(block_.planes()) + " planes is too thin for the " +
                                std::to_string(kGhostPlanes) + " ghost planes equations need");
}

std::size_t BlockedEquations::padded_planes() const {
  return ghosts_below_ + block_.planes() + (block_.above() >= 0 ? kGhostPlanes : 0);
}

void BlockedEquations::pad(const double* block, std::size_t scalars, std::size_t count,
                           std::vector<double>& padded) const {
  const std::size_t m = block_.points(), below = ghosts_below_ * block_.plane_points();
  padded.resize(scalars + count * padded_points_);
  std::copy_n(block, scalars, padded.begin());
  for (std::size_t k = 0; k < count; ++k) {
    const double* field = block + scalars + k * m;
    double* out = padded.data() + scalars + k * padded_points_;
    std::copy_n(field, m, out + below);
    block_.exchange(field, out, out + below + m, kGhostPlanes);
  }
}

void BlockedEquations::unpad(const double* padded, std::size_t scalars, std::size_t count, double* block) const {
  const std::size_t m = block_.points(), below = ghosts_below_ * block_.plane_points();
  for (std::size_t k = 0; k < count; ++k)
    std::copy_n(padded + scalars + k * padded_points_ + below, m, block + scalars + k * m);
}

void BlockedEquations::rates(double t, const double* y, const double* p, double* dydt) const {
  pad(y, 0, fields_, y_);
  pad(p, scalars_, parameter_fields_, p_);
  out_y_.resize(y_.size());
  kernel_.rhs(t, y_.data(), p_.data(), out_y_.data());
  unpad(out_y_.data(), 0, fields_, dydt);
}

void BlockedEquations::vjp(double t, const double* y, const double* p, const double* lambda, double* vjp_y,
                           double* vjp_p) const {
  pad(y, 0, fields_, y_);
  pad(p, scalars_, parameter_fields_, p_);
  pad(lambda, 0, fields_, lambda_);
  out_y_.resize(y_.size());
  out_p_.resize(p_.size());
  kernel_.vjp(scratch_, t, y_.data(), p_.data(), lambda_.data(), out_y_.data(), vjp_p ? out_p_.data() : nullptr);
  unpad(out_y_.data(), 0, fields_, vjp_y);
  if (!vjp_p) return;
  unpad(out_p_.data(), scalars_, parameter_fields_, vjp_p);
  if (scalars_ == 0) return;
  // The scalars' sums over the block's own x rows, added over the grid's rows in order.
  const std::size_t per_plane = block_.plane_points() / block_.grid().size(block_.grid().axes() - 1) * scalars_;
  const auto first = scratch_.begin() + std::ptrdiff_t(ghosts_below_ * per_plane);
  row_sums_.assign(first, first + std::ptrdiff_t(block_.planes() * per_plane));
  block_.fold_rows(row_sums_, scalars_, vjp_p);
}

}  // namespace backsweep::models
