#include "solvers/krylov/grid_transfer.hpp"

#include <algorithm>

namespace backsweep::krylov {
namespace {

// out[i] = sum over fine index k's entries (c, w) of w in[c]: row `k` of one axis' P, as
// whole lines of `line` values (the axes after it).
void interpolate_line(const AxisInterpolation& axis, std::size_t k, const double* in, double* out,
                      std::size_t line) {
  const auto& [c0, w0] = axis.entries[k][0];
  const double* a = in + c0 * line;
  if (axis.count[k] == 1) {
    for (std::size_t i = 0; i < line; ++i) out[i] = w0 * a[i];
    return;
  }
  const auto& [c1, w1] = axis.entries[k][1];
  const double* b = in + c1 * line;
  for (std::size_t i = 0; i < line; ++i) out[i] = w0 * a[i] + w1 * b[i];
}

// The transpose: out[c] += w in[k] for fine index k's entries, whole lines.
void restrict_line(const AxisInterpolation& axis, std::size_t k, const double* in, double* out, std::size_t line) {
  for (unsigned char e = 0; e < axis.count[k]; ++e) {
    const auto& [c, w] = axis.entries[k][e];
    double* to = out + c * line;
    for (std::size_t i = 0; i < line; ++i) to[i] += w * in[i];
  }
}

}  // namespace

bool coarsens(std::size_t size, Boundary boundary) {
  return boundary == Boundary::periodic ? size >= 4 && size % 2 == 0 : size >= 3;
}

AxisInterpolation axis_interpolation(std::size_t size, Boundary boundary) {
  AxisInterpolation axis;
  axis.entries.resize(size);
  axis.count.assign(size, 0);
  const auto add = [&](std::size_t fine, std::size_t coarse, double weight) {
    axis.entries[fine][axis.count[fine]++] = {static_cast<std::uint32_t>(coarse), weight};
  };
  if (!coarsens(size, boundary)) {  // kept as it is
    axis.coarse = size;
    for (std::size_t i = 0; i < size; ++i) add(i, i, 1.0);
    return axis;
  }
  const std::size_t nc = axis.coarse = size / 2;
  for (std::size_t i = 0; i < size; ++i) {
    if (i % 2 == 1) {
      add(i, i / 2, 1.0);
      continue;
    }
    const std::size_t k = i / 2;
    const bool left = k >= 1 || boundary == Boundary::periodic, right = k < nc;
    if (left && right) {
      add(i, k >= 1 ? k - 1 : nc - 1, 0.5);
      add(i, k, 0.5);
    } else {
      add(i, left ? k - 1 : k, boundary == Boundary::neumann ? 1.0 : 0.5);
    }
  }
  return axis;
}

std::size_t GridUnknowns::points() const {
  std::size_t n = 1;
  for (const std::size_t s : shape) n *= s;
  return n;
}

GridTransfer::GridTransfer(const GridUnknowns& fine, std::vector<AxisInterpolation> along)
    : fields_(fine.fields), extra_(fine.extra) {
  const std::size_t skip = 3 - fine.shape.size();
  for (std::size_t a = 0; a < skip; ++a) along_[a] = axis_interpolation(1, Boundary::dirichlet);  // kept
  for (std::size_t a = 0; a < fine.shape.size(); ++a) {
    fine_[skip + a] = fine.shape[a];
    coarse_[skip + a] = along[a].coarse;
    along_[skip + a] = std::move(along[a]);
  }
  x_done_.resize(coarse_[0] * coarse_[1] * fine_[2]);
  xy_done_.resize(coarse_[0] * fine_[1] * fine_[2]);
}

void GridTransfer::prolong(const double* coarse, double* fine) {
  const auto [f0, f1, f2] = fine_;
  const auto [c0, c1, c2] = coarse_;
  for (std::size_t f = 0; f < fields_; ++f, coarse += c0 * c1 * c2, fine += f0 * f1 * f2) {
    for (std::size_t row = 0; row < c0 * c1; ++row)  // along x, point by point
      for (std::size_t i = 0; i < f2; ++i) interpolate_line(along_[2], i, coarse + row * c2, &x_done_[row * f2 + i], 1);
    for (std::size_t k = 0; k < c0; ++k)  // along y, x-lines at a time
      for (std::size_t j = 0; j < f1; ++j)
        interpolate_line(along_[1], j, &x_done_[k * c1 * f2], &xy_done_[(k * f1 + j) * f2], f2);
    for (std::size_t k = 0; k < f0; ++k)  // along z, planes at a time
      interpolate_line(along_[0], k, xy_done_.data(), fine + k * f1 * f2, f1 * f2);
  }
  std::copy(coarse, coarse + extra_, fine);
}

void GridTransfer::restrict_to(const double* fine, double* coarse) {
  const auto [f0, f1, f2] = fine_;
  const auto [c0, c1, c2] = coarse_;
  for (std::size_t f = 0; f < fields_; ++f, coarse += c0 * c1 * c2, fine += f0 * f1 * f2) {
    std::fill(xy_done_.begin(), xy_done_.end(), 0.0);
    for (std::size_t k = 0; k < f0; ++k) restrict_line(along_[0], k, fine + k * f1 * f2, xy_done_.data(), f1 * f2);
    std::fill(x_done_.begin(), x_done_.end(), 0.0);
    for (std::size_t k = 0; k < c0; ++k)
      for (std::size_t j = 0; j < f1; ++j)
        restrict_line(along_[1], j, &xy_done_[(k * f1 + j) * f2], &x_done_[k * c1 * f2], f2);
    std::fill(coarse, coarse + c0 * c1 * c2, 0.0);
    for (std::size_t row = 0; row < c0 * c1; ++row)
      for (std::size_t i = 0; i < f2; ++i) restrict_line(along_[2], i, &x_done_[row * f2 + i], coarse + row * c2, 1);
  }
  std::copy(fine, fine + extra_, coarse);
}

}  // namespace backsweep::krylov
