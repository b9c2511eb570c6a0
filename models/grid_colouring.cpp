// Lattice colourings of a grid model's state columns (colour_columns, models/sparsity.hpp).
#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "models/grid.hpp"
#include "models/sparsity.hpp"

namespace backsweep::detail {
namespace {

constexpr std::size_t kLargestModulus = 13;  // past greedy's count on the stencils this is for

// The rows of the points at positions {0, 1, middle, n - 2, n - 1} along every axis, each
// field's: where walls and wraps change a stencil, and its interior.
std::vector<std::size_t> sample_rows(const Grid& grid, std::size_t fields) {
  std::vector<std::size_t> points{0};
  for (std::size_t a = 0; a < grid.axes(); ++a) {
    const std::size_t n = grid.size(a);
    std::vector<std::size_t> along{0, 1, n / 2, n >= 2 ? n - 2 : 0, n - 1}, next;
    for (const std::size_t p : points)
      for (const std::size_t i : along)
        if (i < n) next.push_back(p + i * grid.stride(a));
    std::sort(next.begin(), next.end());
    next.erase(std::unique(next.begin(), next.end()), next.end());
    points = std::move(next);
  }
  std::vector<std::size_t> rows;
  for (std::size_t f = 0; f < fields; ++f)
    for (const std::size_t p : points) rows.push_back(f * grid.points() + p);
  return rows;
}

// A state column's field and position, to colour it without its whole grid.
struct Site {
  std::size_t field;
  GridPosition at;
};

std::uint32_t lattice_colour(const Site& site, std::size_t m, const std::array<std::size_t, 3>& w) {
  std::size_t sum = 0;
  for (std::size_t a = 0; a < 3; ++a) sum += w[a] * site.at[a];
  return std::uint32_t(site.field * m + sum % m);
}

// Whether no row holds two state columns of one colour.
bool distinct_in_rows(const SparsityPattern& pattern, const std::vector<std::uint32_t>& colour_of, std::size_t colours) {
  std::vector<std::size_t> stamp(colours, SIZE_MAX);
  for (std::size_t i = 0; i < pattern.rows; ++i)
    for (const std::uint32_t c : pattern.row(i)) {
      if (c >= pattern.rows) break;  // parameter columns come after the states
      if (stamp[colour_of[c]] == i) return false;
      stamp[colour_of[c]] = i;
    }
  return true;
}

}  // namespace

// State column (field f, point at position x) coloured f m + (sum_a w_a x_a mod m), for the
// least m and the first weights w valid on sample rows and then on every row; none when no
// m up to kLargestModulus is.
std::optional<std::vector<std::uint32_t>> lattice_colouring(const SparsityPattern& pattern, const Grid& grid) {
  const std::size_t points = grid.points(), axes = grid.axes();
  if (pattern.rows == 0 || pattern.rows % points != 0) return std::nullopt;
  const std::size_t fields = pattern.rows / points;
  // The sample rows' state columns, as sites (positions by division: a few hundred rows).
  std::vector<std::vector<Site>> samples;
  for (const std::size_t i : sample_rows(grid, fields)) {
    samples.emplace_back();
    for (const std::uint32_t c : pattern.row(i))
      if (c < pattern.rows) samples.back().push_back({c / points, grid.position(c % points)});
  }
  std::vector<std::uint32_t> colour_of(pattern.rows), stamp;
  const auto fits_samples = [&](std::size_t m, const std::array<std::size_t, 3>& w) {
    stamp.assign(fields * m, 0);
    for (std::size_t r = 0; r < samples.size(); ++r)
      for (const Site& site : samples[r]) {
        const std::uint32_t colour = lattice_colour(site, m, w);
        if (stamp[colour] == r + 1) return false;
        stamp[colour] = std::uint32_t(r + 1);
      }
    return true;
  };
  int full_checks = 4;  // samples that pass but rows elsewhere fail: a pattern this does not fit
  for (std::size_t m = 1; m <= kLargestModulus; ++m) {
    std::size_t combinations = 1;
    for (std::size_t a = 0; a < axes; ++a) combinations *= m;
    for (std::size_t code = 0; code < combinations; ++code) {
      std::array<std::size_t, 3> w{};
      for (std::size_t a = 0, rest = code; a < axes; ++a, rest /= m) w[a] = rest % m;
      if (!fits_samples(m, w)) continue;
      if (full_checks-- == 0) return std::nullopt;
      for_each_point(grid, [&](std::size_t point, const GridPosition& at) {
        for (std::size_t f = 0; f < fields; ++f) colour_of[f * points + point] = lattice_colour({f, at}, m, w);
      });
      if (distinct_in_rows(pattern, colour_of, fields * m)) return colour_of;
    }
  }
  return std::nullopt;
}

}  // namespace backsweep::detail
