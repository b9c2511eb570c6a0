#pragma once
// The grid models on one block of a grid split over ranks
// (models/grid_block.hpp): the state and parameter fields hold the block's points, halos
// are exchanged before each right-hand side and each VJP, and dJ/dp's sums over the grid
// are folded in the grid's order. Each point does the whole grid's arithmetic on the same
// neighbours, so the gradients of a split run are bitwise those of one process. Run with
// RankAlgebra (solvers/rank_algebra.hpp), which keeps every rank's decisions alike.
//
// Gray–Scott reads its ghost planes where they lie (no copy of the block: the kernel's
// memory traffic stays its own); a point kernel's block is copied between ghost planes.
// A model keeps its ghost planes: one gradient at a time uses it.
#include <algorithm>
#include <cstddef>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "models/builtin/gray_scott.hpp"
#include "models/grid_block.hpp"

namespace backsweep::models {

class BlockedGrayScott {
 public:
  static constexpr std::string_view name = GrayScott::name;

  explicit BlockedGrayScott(GridBlock block) : block_(std::move(block)) {}

  const GridBlock& block() const { return block_; }
  std::size_t state_size() const { return 2 * block_.points(); }
  std::size_t param_size() const { return 4; }

  template <class T>
  void operator()(T, const T* y, const T* p, T* dydt) const {
    if constexpr (std::is_same_v<T, double>) {
      gray_scott_rates(block_.grid(), planes_of(y, ghosts_), y, p, dydt);
    } else {
      std::vector<T> ghosts;
      GrayScott::rates(block_.grid(), planes_of(y, ghosts), y, p, dydt);
    }
  }

  // lambdaᵀ df/dy and lambdaᵀ df/dp (vjp_p may be null): the VJP reads the adjoints' halo.
  void vjp(double, const double* y, const double* p, const double* lambda, double* vjp_y, double* vjp_p) const;

 private:
  // Both fields' ghost planes of `fields` (u then v), exchanged into `ghosts`.
  template <class T>
  PlaneRange<T, 2> planes_of(const T* fields, std::vector<T>& ghosts) const {
    const std::size_t n = block_.points(), plane = block_.plane_points();
    ghosts.resize(4 * plane);
    PlaneRange<T, 2> planes{block_.first_plane(), block_.planes(), {}, {}};
    for (std::size_t k = 0; k < 2; ++k) {
      T* below = ghosts.data() + 2 * k * plane;
      T* above = below + plane;
      block_.exchange(fields + k * n, below, above);
      if (block_.below() >= 0) planes.below[k] = below;
      if (block_.above() >= 0) planes.above[k] = above;
    }
    return planes;
  }

  GridBlock block_;
  mutable std::vector<double> ghosts_, row_sums_;
};

// A grid model written as a point kernel (M::PointKernel on M::kernel_on's frame: heat,
// advection–diffusion, acoustic, and any added later) on one block: its state fields and
// parameter fields are copied between ghost planes (exchanged), the kernel runs at the
// block's own points, and scalar parameters' dJ/dp are summed x row by x row and folded
// in the grid's order, as the model alone sums them.
template <class M>
class BlockedPointKernel {
 public:
  using Kernel = typename M::PointKernel;
  static constexpr std::string_view name = M::name;
  static constexpr bool kScalarParameters =
      requires(const Kernel& k, std::size_t point, const GridPosition& at, const double* v) {
        k.parameter_terms(point, at, v, v);
      };

  BlockedPointKernel(const M& model, GridBlock block) : block_(std::move(block)) {
    const Grid& grid = block_.grid();
    fields_ = model.state_size() / grid.points();
    scalars_ = kScalarParameters ? model.param_size() : 0;
    parameter_fields_ = kScalarParameters ? 0 : model.param_size() / grid.points();
    const std::size_t plane = block_.plane_points(), below = block_.below() >= 0 ? 1 : 0;
    const std::size_t ghosts = below + (block_.above() >= 0 ? 1 : 0);
    // The padded block's axes: the grid's, with the block's planes and ghosts along axis 0.
    KernelFrame frame{grid.stencil_axes(), block_.first_plane() * plane, block_.points(), below * plane};
    if (grid.axes() > 1) frame.axes.axis[0].size = block_.planes() + ghosts;
    padded_points_ = block_.points() + ghosts * plane;
    kernel_ = model.kernel_on(frame);
  }

  const GridBlock& block() const { return block_; }
  std::size_t state_size() const { return fields_ * block_.points(); }
  std::size_t param_size() const { return scalars_ + parameter_fields_ * block_.points(); }

  template <class T>
  void operator()(T t, const T* y, const T* p, T* dydt) const {
    Padded<T> local;
    Padded<T>& padded = [&]() -> Padded<T>& {
      if constexpr (std::is_same_v<T, double>) return padded_;
      else return local;
    }();
    pad(y, fields_, padded.y);
    const T* parameters = pad_parameters(p, padded.p);
    padded.out_y.resize(fields_ * padded_points_);
    for_each_owned_point([&](std::size_t point, const GridPosition& at) {
      kernel_.rate(point, at, t, padded.y.data(), parameters, padded.out_y.data());
    });
    unpad(padded.out_y, fields_, dydt);
  }

  // lambdaᵀ df/dy and lambdaᵀ df/dp (vjp_p may be null): the VJP reads the adjoints' halo.
  void vjp(double, const double* y, const double* p, const double* lambda, double* vjp_y, double* vjp_p) const {
    Padded<double>& padded = padded_;
    pad(y, fields_, padded.y);
    pad(lambda, fields_, padded.lambda);
    const double* parameters = pad_parameters(p, padded.p);
    padded.out_y.resize(fields_ * padded_points_);
    padded.out_p.resize(parameter_fields_ * padded_points_);
    double* out_p = vjp_p && parameter_fields_ ? padded.out_p.data() : nullptr;
    const std::size_t row = block_.grid().size(block_.grid().axes() - 1);
    std::vector<double>& row_sums = padded.row_sums;
    row_sums.assign(vjp_p ? scalars_ * (block_.points() / row) : 0, 0.0);
    double* sums = row_sums.data();  // this row's
    std::size_t in_row = 0;
    for_each_owned_point([&](std::size_t point, const GridPosition& at) {
      kernel_.vjp(point, at, padded.y.data(), parameters, padded.lambda.data(), padded.out_y.data(), out_p);
      if constexpr (kScalarParameters) {
        if (!vjp_p) return;
        const auto terms = kernel_.parameter_terms(point, at, padded.y.data(), padded.lambda.data());
        for (std::size_t j = 0; j < scalars_; ++j) sums[j] += terms[j];
        if (++in_row < row) return;
        in_row = 0;
        sums += scalars_;
      }
    });
    unpad(padded.out_y, fields_, vjp_y);
    if (!vjp_p) return;
    if (scalars_) block_.fold_rows(row_sums, scalars_, vjp_p);
    else unpad(padded.out_p, parameter_fields_, vjp_p);
  }

 private:
  template <class T>
  struct Padded {
    std::vector<T> y, p, lambda, out_y, out_p;
    std::vector<double> row_sums;
  };

  // `count` fields of the block, each copied between its ghost planes (exchanged), where
  // the block has neighbours.
  template <class T>
  void pad(const T* fields, std::size_t count, std::vector<T>& padded) const {
    const std::size_t plane = block_.plane_points(), below = block_.below() >= 0 ? plane : 0;
    padded.resize(count * padded_points_);
    for (std::size_t k = 0; k < count; ++k) {
      const T* field = fields + k * block_.points();
      T* out = padded.data() + k * padded_points_;
      std::copy(field, field + block_.points(), out + below);
      block_.exchange(field, out, out + below + block_.points());
    }
  }
  template <class T>
  void unpad(const std::vector<T>& padded, std::size_t count, T* fields) const {
    const std::size_t below = block_.below() >= 0 ? block_.plane_points() : 0;
    for (std::size_t k = 0; k < count; ++k) {
      const auto first = padded.begin() + std::ptrdiff_t(k * padded_points_ + below);
      std::copy(first, first + std::ptrdiff_t(block_.points()), fields + k * block_.points());
    }
  }
  // The parameters as the kernel reads them: scalars as they are, fields padded.
  template <class T>
  const T* pad_parameters(const T* p, std::vector<T>& padded) const {
    if (scalars_) return p;
    pad(p, parameter_fields_, padded);
    return padded.data();
  }
  // f(point, at) for the block's own points, as padded indices and positions.
  template <class F>
  void for_each_owned_point(F&& f) const {
    const std::size_t plane = block_.plane_points(), below = block_.below() >= 0 ? 1 : 0;
    const Grid& grid = block_.grid();
    for (std::size_t i = 0; i < block_.points(); ++i) {
      GridPosition at = grid.position(block_.first_plane() * plane + i);
      at[0] = at[0] - block_.first_plane() + below;
      f(i + below * plane, at);
    }
  }

  GridBlock block_;
  Kernel kernel_{};
  std::size_t fields_ = 0, scalars_ = 0, parameter_fields_ = 0, padded_points_ = 0;
  mutable Padded<double> padded_;
};

// The block's part of the whole-grid model `model`: each grid model's adapter.
template <class M>
auto blocked(const M& model, GridBlock block) {
  if constexpr (std::is_same_v<M, GrayScott>) return BlockedGrayScott(std::move(block));
  else return BlockedPointKernel<M>(model, std::move(block));
}

}  // namespace backsweep::models
