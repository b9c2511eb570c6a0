#include "models/grid_block.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>

#include "models/grid_laplacian.hpp"

namespace backsweep {

GridBlock::GridBlock(Grid grid, int rank, int count) : grid_(std::move(grid)), count_(count) {
  const std::size_t ranks = std::size_t(count);
  if (count > 1 && grid_.axes() == 1)
    throw std::invalid_argument("a 1-D grid is not split over ranks (its one axis is x); run it alone");
  plane_points_ = backsweep::plane_points(grid_);
  const std::size_t total = grid_.points() / plane_points_, r = std::size_t(rank);
  if (total < ranks)
    throw std::invalid_argument("a grid of " + std::to_string(total) + " planes cannot be split over " +
                                std::to_string(count) + " ranks");
  const std::size_t base = total / ranks, extra = total % ranks;
  planes_ = base + (r < extra ? 1 : 0);
  first_ = r * base + std::min(r, extra);
  if (count == 1) return;
  const bool periodic = grid_.boundary()[0] == Boundary::periodic;
  if (rank > 0) below_ = rank - 1;
  else if (periodic) below_ = count - 1;
  if (rank + 1 < count) above_ = rank + 1;
  else if (periodic) above_ = 0;
}

void GridBlock::gather_bytes(const void* mine, std::size_t fields, std::size_t value_size, void* whole) const {
  const std::size_t n = grid_.points() * value_size;
  const auto* bytes = static_cast<const char*>(mine);
  auto* out = static_cast<char*>(whole);
  if (count_ == 1) return void(std::memcpy(out, bytes, fields * n));
  const std::vector<std::string> all = ranks::all_gather(std::string(bytes, fields * points() * value_size));
  for (int r = 0; r < count_; ++r) {
    const GridBlock theirs(grid_, r, count_);
    const std::size_t m = theirs.points() * value_size, begin = theirs.first_ * plane_points_ * value_size;
    for (std::size_t k = 0; k < fields; ++k) std::memcpy(out + k * n + begin, all[std::size_t(r)].data() + k * m, m);
  }
}

void GridBlock::fold_rows(const std::vector<double>& row_sums, std::size_t per_row, double* total) const {
  std::fill_n(total, per_row, 0.0);
  const auto add = [&](const double* sums, std::size_t count) {
    for (std::size_t i = 0; i < count; i += per_row)
      for (std::size_t j = 0; j < per_row; ++j) total[j] += sums[i + j];
  };
  if (count_ == 1) return add(row_sums.data(), row_sums.size());
  const std::string mine(reinterpret_cast<const char*>(row_sums.data()), row_sums.size() * sizeof(double));
  for (const std::string& theirs : ranks::all_gather(mine)) {  // in rank order: the planes' order
    std::vector<double> sums(theirs.size() / sizeof(double));
    std::memcpy(sums.data(), theirs.data(), theirs.size());
    add(sums.data(), sums.size());
  }
}

}  // namespace backsweep
