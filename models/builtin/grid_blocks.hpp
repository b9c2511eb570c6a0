#pragma once
// The Gray–Scott and heat kernels on one block of a grid split over ranks
// (models/grid_block.hpp): the state and parameter fields hold the block's points, halos
// are exchanged before each right-hand side and each VJP, and dJ/dp's sums over the grid
// are folded in the grid's order. Each point does the whole grid's arithmetic on the same
// neighbours, so the gradients of a split run are bitwise those of one process. Run with
// RankAlgebra (solvers/rank_algebra.hpp), which keeps every rank's decisions alike.
//
// Gray–Scott reads its ghost planes where they lie (no copy of the block: the kernel's
// memory traffic stays its own); heat copies its block between ghost planes.
// A model keeps its ghost planes: one gradient at a time uses it.
#include <algorithm>
#include <cstddef>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "models/builtin/gray_scott.hpp"
#include "models/builtin/heat.hpp"
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

// Heat, u_t = div(k grad u), with k a field split like u.
class BlockedHeat {
 public:
  static constexpr std::string_view name = Heat::name;

  explicit BlockedHeat(GridBlock block);

  const GridBlock& block() const { return block_; }
  std::size_t state_size() const { return block_.points(); }
  std::size_t param_size() const { return block_.points(); }

  template <class T>
  void operator()(T t, const T* u, const T* k, T* dudt) const {
    Padded<T> local;
    Padded<T>& padded = [&]() -> Padded<T>& {
      if constexpr (std::is_same_v<T, double>) return padded_;
      else return local;
    }();
    pad(u, padded.u);
    pad(k, padded.k);
    padded.out_u.resize(padded_points_);
    const Heat::PointKernel kernel{axes_};
    for_each_owned_point([&](std::size_t point, const GridPosition& at) {
      kernel.rate(point, at, t, padded.u.data(), padded.k.data(), padded.out_u.data());
    });
    unpad(padded.out_u, dudt);
  }

  void vjp(double, const double* u, const double* k, const double* lambda, double* vjp_u, double* vjp_k) const;

 private:
  // `field` copied between its ghost planes (exchanged), where the block has neighbours.
  template <class T>
  void pad(const T* field, std::vector<T>& padded) const {
    const std::size_t plane = block_.plane_points(), below = block_.below() >= 0 ? plane : 0;
    padded.resize(padded_points_);
    std::copy(field, field + block_.points(), padded.begin() + below);
    block_.exchange(field, padded.data(), padded.data() + below + block_.points());
  }
  template <class T>
  void unpad(const std::vector<T>& padded, T* field) const {
    const auto first = padded.begin() + (block_.below() >= 0 ? block_.plane_points() : 0);
    std::copy(first, first + block_.points(), field);
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

  // Fields between their ghost planes: in, and out of the kernel.
  template <class T>
  struct Padded {
    std::vector<T> u, k, lambda, out_u, out_k;
  };

  GridBlock block_;
  mutable Padded<double> padded_;
  GridAxes axes_;  // the padded block's: the grid's, with the block's planes along axis 0
  std::size_t padded_points_ = 0;
};

}  // namespace backsweep::models
