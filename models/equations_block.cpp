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
      ghosts_below_(block_.below() >= 0 ? kGhostPlanes : 0), ghosts_above_(block_.above() >= 0 ? kGhostPlanes : 0),
      kernel_(compiled_kernel_of(model).on_planes(block_.first_plane(), block_.planes())) {
  if (block_.planes() < kGhostPlanes)
    throw std::invalid_argument("a block of " + std::to_string(block_.planes()) + " planes is too thin for the " +
                                std::to_string(kGhostPlanes) + " ghost planes equations need");
  const CompiledFieldKernel& whole = compiled_kernel_of(model);
  if (ghosts_below_) windows_.push_back(window(0, kGhostPlanes, whole));
  if (ghosts_above_) windows_.push_back(window(block_.planes() - kGhostPlanes, block_.planes(), whole));
}

BlockedEquations::Window BlockedEquations::window(std::size_t lo, std::size_t hi,
                                                  const CompiledFieldKernel& whole) const {
  const auto reach = std::ptrdiff_t(kGhostPlanes);
  const std::ptrdiff_t start = std::max(std::ptrdiff_t(lo) - reach, -std::ptrdiff_t(ghosts_below_));
  const std::ptrdiff_t end = std::min(std::ptrdiff_t(hi) + reach, std::ptrdiff_t(block_.planes() + ghosts_above_));
  const std::size_t count = std::size_t(end - start);
  const std::ptrdiff_t first = std::ptrdiff_t(block_.first_plane() + block_.grid().size(0)) + start;  // wrapped
  return {lo, hi, start, count, whole.on_planes(std::size_t(first), count)};
}

void BlockedEquations::exchange(const double* fields, std::size_t count, Ghosts& ghosts) const {
  const std::size_t m = block_.points(), ghost = kGhostPlanes * block_.plane_points();
  ghosts.below.resize(count * ghost);
  ghosts.above.resize(count * ghost);
  for (std::size_t k = 0; k < count; ++k)
    block_.exchange(fields + k * m, ghosts.below.data() + k * ghost, ghosts.above.data() + k * ghost, kGhostPlanes);
}

void BlockedEquations::fill(const Window& w, const double* fields, std::size_t scalars, std::size_t count,
                            const Ghosts& ghosts, std::vector<double>& buffer) const {
  const std::size_t plane = block_.plane_points(), m = block_.points(), n = w.count * plane;
  const auto planes = std::ptrdiff_t(block_.planes()), reach = std::ptrdiff_t(kGhostPlanes);
  buffer.resize(scalars + count * n);
  std::copy_n(fields, scalars, buffer.begin());
  for (std::size_t k = 0; k < count; ++k)
    for (std::size_t i = 0; i < w.count; ++i) {
      const std::ptrdiff_t e = w.start + std::ptrdiff_t(i);
      const double* from = e < 0         ? ghosts.below.data() + (k * kGhostPlanes + std::size_t(reach + e)) * plane
                           : e >= planes ? ghosts.above.data() + (k * kGhostPlanes + std::size_t(e - planes)) * plane
                                         : fields + scalars + k * m + std::size_t(e) * plane;
      std::copy_n(from, plane, buffer.data() + scalars + k * n + i * plane);
    }
}

void BlockedEquations::take(const Window& w, const double* buffer, std::size_t scalars, std::size_t count,
                            double* fields) const {
  const std::size_t plane = block_.plane_points(), m = block_.points(), n = w.count * plane;
  const std::size_t first = std::size_t(std::ptrdiff_t(w.lo) - w.start) * plane, length = (w.hi - w.lo) * plane;
  for (std::size_t k = 0; k < count; ++k)
    std::copy_n(buffer + scalars + k * n + first, length, fields + scalars + k * m + w.lo * plane);
}

void BlockedEquations::rates(double t, const double* y, const double* p, double* dydt) const {
  kernel_.rhs(t, y, p, dydt);
  if (windows_.empty()) return;
  exchange(y, fields_, y_ghosts_);
  exchange(p + scalars_, parameter_fields_, p_ghosts_);
  for (const Window& w : windows_) {
    fill(w, y, 0, fields_, y_ghosts_, y_);
    fill(w, p, scalars_, parameter_fields_, p_ghosts_, p_);
    out_y_.resize(y_.size());
    w.kernel.rhs(t, y_.data(), p_.data(), out_y_.data());
    take(w, out_y_.data(), 0, fields_, dydt);
  }
}

void BlockedEquations::vjp(double t, const double* y, const double* p, const double* lambda, double* vjp_y,
                           double* vjp_p) const {
  kernel_.vjp(scratch_, t, y, p, lambda, vjp_y, vjp_p);
  // Each x row's sums of the scalars' adjoints: the block's rows', those by a cut redone.
  const std::size_t per_plane = block_.plane_points() / block_.grid().size(block_.grid().axes() - 1) * scalars_;
  row_sums_.assign(scratch_.begin(), scratch_.begin() + std::ptrdiff_t(block_.planes() * per_plane));
  if (!windows_.empty()) {
    exchange(y, fields_, y_ghosts_);
    exchange(p + scalars_, parameter_fields_, p_ghosts_);
    exchange(lambda, fields_, lambda_ghosts_);
  }
  for (const Window& w : windows_) {
    fill(w, y, 0, fields_, y_ghosts_, y_);
    fill(w, p, scalars_, parameter_fields_, p_ghosts_, p_);
    fill(w, lambda, 0, fields_, lambda_ghosts_, lambda_);
    out_y_.resize(y_.size());
    out_p_.resize(p_.size());
    w.kernel.vjp(window_scratch_, t, y_.data(), p_.data(), lambda_.data(), out_y_.data(),
                 vjp_p ? out_p_.data() : nullptr);
    take(w, out_y_.data(), 0, fields_, vjp_y);
    if (!vjp_p) continue;
    take(w, out_p_.data(), scalars_, parameter_fields_, vjp_p);
    const auto first = window_scratch_.begin() + (std::ptrdiff_t(w.lo) - w.start) * std::ptrdiff_t(per_plane);
    std::copy_n(first, (w.hi - w.lo) * per_plane, row_sums_.begin() + std::ptrdiff_t(w.lo * per_plane));
  }
  if (vjp_p && scalars_) block_.fold_rows(row_sums_, scalars_, vjp_p);
}

}  // namespace backsweep::models
