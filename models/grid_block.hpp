#pragma once
// A grid split over ranks (platform/ranks.hpp) into blocks of whole planes along its
// slowest axis (z in 3-D, y in 2-D): the planes a rank owns, the ranks that own the planes
// beyond them, and the exchange of those planes (the halo) that a stencil kernel needs
// before each right-hand side and each VJP. Fields of a block hold its own points only,
// plane after plane, so the engine's vectors, checkpoints and scans are the block's.
//
// Sums over the grid that reach a gradient are made row by row (x rows) and the rows'
// sums added in the whole grid's order (fold_rows): each point does the same arithmetic
// on the same neighbours, so a block's results are bitwise the whole grid's for any
// number of ranks.
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <memory>
#include <vector>

#include "models/grid.hpp"
#include "platform/ranks.hpp"

namespace backsweep {

// Time and bytes spent exchanging halos, for benchmarks.
struct HaloClock {
  double seconds = 0.0;
  std::size_t bytes = 0;
};

class GridBlock {
 public:
  // The block of rank `rank` among `count`: the planes shared out as evenly as they go,
  // the first ranks taking one more. Throws std::invalid_argument for a 1-D grid split
  // (its one axis is x) or fewer planes than ranks.
  GridBlock(Grid grid, int rank, int count);

  const Grid& grid() const { return grid_; }
  std::size_t first_plane() const { return first_; }
  std::size_t planes() const { return planes_; }
  std::size_t plane_points() const { return plane_points_; }
  std::size_t points() const { return planes_ * plane_points_; }
  // The ranks that own the planes just below and above this block, or -1: a wall there,
  // or a periodic axis this block spans alone (it wraps onto itself).
  int below() const { return below_; }
  int above() const { return above_; }
  const HaloClock& halo_clock() const { return *clock_; }

  // Sends this block's first `depth` planes of `field` to the rank below and its last
  // `depth` to the rank above, and receives theirs: the planes below this block into `ghost_below`,
  // those above into `ghost_above` (depth * plane_points() values each, in the grid's
  // order; untouched with no neighbour). depth <= planes(). Every rank calls it alike.
  template <class T>
  void exchange(const T* field, T* ghost_below, T* ghost_above, std::size_t depth = 1) const {
    const auto start = std::chrono::steady_clock::now();
    const std::size_t bytes = depth * plane_points_ * sizeof(T);
    ranks::send_receive(field, below_, ghost_above, above_, bytes);
    ranks::send_receive(field + (planes_ - depth) * plane_points_, above_, ghost_below, below_, bytes);
    clock_->seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    clock_->bytes += 2 * bytes;
  }

  // A vector of `fields` fields on this block (field after field, each plane after plane)
  // gathered from every rank into the whole grid's layout, on every rank; and this block's
  // part of a whole-grid vector. Every rank calls gather alike.
  template <class T>
  std::vector<T> gather(const T* mine, std::size_t fields) const {
    std::vector<T> whole(fields * grid_.points());
    gather_bytes(mine, fields, sizeof(T), whole.data());
    return whole;
  }
  template <class T>
  void take_part(const T* whole, std::size_t fields, T* mine) const {
    const std::size_t n = grid_.points(), m = points(), begin = first_ * plane_points_;
    for (std::size_t k = 0; k < fields; ++k) std::copy_n(whole + k * n + begin, m, mine + k * m);
  }

  // `per_row` sums for each x row of this block, row after row, added up over the whole
  // grid's rows in order into total[0, per_row): the same numbers on every rank, bitwise
  // those of the grid alone.
  void fold_rows(const std::vector<double>& row_sums, std::size_t per_row, double* total) const;

 private:
  void gather_bytes(const void* mine, std::size_t fields, std::size_t value_size, void* whole) const;

  Grid grid_;
  std::size_t first_ = 0, planes_ = 0, plane_points_ = 0;
  int below_ = -1, above_ = -1, count_ = 1;
  std::shared_ptr<HaloClock> clock_ = std::make_shared<HaloClock>();
};

}  // namespace backsweep
