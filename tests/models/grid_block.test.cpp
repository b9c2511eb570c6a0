// Grid blocks (models/grid_block.hpp): how planes are shared out and who the neighbours
// are, and the Gray–Scott kernels over a block, its ghost planes copied in from the
// whole field here: every block's rates and adjoints are bitwise the whole grid's, and
// its rows' dJ/dp sums added in the grid's order are bitwise the whole VJP's, for 1 to 4
// blocks (periodic, Neumann and Dirichlet planes; rows of one and of two kernel blocks).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "models/builtin/gray_scott.hpp"
#include "models/grid_block.hpp"

using namespace backsweep;
using backsweep::models::gray_scott_rates;
using backsweep::models::gray_scott_vjp;

TEST_CASE("planes are shared out as evenly as they go, and neighbours wrap on a periodic axis") {
  const Grid periodic({10, 4}, {1.0, 1.0}, {Boundary::periodic, Boundary::periodic});
  const GridBlock first(periodic, 0, 3), middle(periodic, 1, 3), last(periodic, 2, 3);
  CHECK(first.first_plane() == 0);
  CHECK(first.planes() == 4);
  CHECK(middle.first_plane() == 4);
  CHECK(middle.planes() == 3);
  CHECK(last.first_plane() == 7);
  CHECK(last.points() == 12);
  CHECK(first.below() == 2);
  CHECK(first.above() == 1);
  CHECK(last.above() == 0);
  const GridBlock alone(periodic, 0, 1);
  CHECK(alone.below() == -1);
  CHECK(alone.above() == -1);

  const Grid walls({10, 4}, {1.0, 1.0}, {Boundary::dirichlet, Boundary::periodic});
  CHECK(GridBlock(walls, 0, 2).below() == -1);
  CHECK(GridBlock(walls, 1, 2).above() == -1);
  CHECK(GridBlock(walls, 1, 2).below() == 0);

  CHECK_THROWS_AS(GridBlock(Grid({8}, {1.0}, {Boundary::periodic}), 0, 2), std::invalid_argument);
  CHECK_THROWS_AS(GridBlock(Grid({3, 4}, {1.0, 1.0}, {Boundary::periodic, Boundary::periodic}), 0, 4),
                  std::invalid_argument);
}

namespace {

std::vector<double> wavy(std::size_t n, double base, double phase) {
  std::vector<double> values(n);
  for (std::size_t i = 0; i < n; ++i) values[i] = base + 0.3 * std::sin(0.7 * double(i) + phase);
  return values;
}

bool same_bits(const double* a, const double* b, std::size_t n) { return std::memcmp(a, b, n * sizeof(double)) == 0; }

// Every block of `grid` split `count` ways against the whole grid.
void check_blocks(const Grid& grid, int count) {
  CAPTURE(count);
  const std::size_t n = grid.points(), plane = plane_points(grid), planes = n / plane;
  const std::vector<double> y = wavy(2 * n, 0.5, 0.0), lambda = wavy(2 * n, 0.0, 1.0);
  const std::vector<double> p{8e-3, 4e-3, 0.024, 0.06};
  std::vector<double> rates(2 * n), vjp_y(2 * n), vjp_p(4);
  gray_scott_rates(grid, y.data(), p.data(), rates.data());
  gray_scott_vjp(grid, y.data(), p.data(), lambda.data(), vjp_y.data(), vjp_p.data());

  double folded[4] = {0, 0, 0, 0};
  for (int rank = 0; rank < count; ++rank) {
    CAPTURE(rank);
    const GridBlock block(grid, rank, count);
    const std::size_t m = block.points(), begin = block.first_plane() * plane;
    // The block's own points of both fields, and their planes beyond it.
    const auto local = [&](const std::vector<double>& field) {
      std::vector<double> part(2 * m);
      for (std::size_t k = 0; k < 2; ++k)
        std::copy_n(field.begin() + std::ptrdiff_t(k * n + begin), m, part.begin() + std::ptrdiff_t(k * m));
      return part;
    };
    const auto ghosts = [&](const std::vector<double>& field) {
      PlaneRange<double, 2> range{block.first_plane(), block.planes(), {}, {}};
      for (std::size_t k = 0; k < 2; ++k) {
        const std::size_t below = (block.first_plane() + planes - 1) % planes,
                          above = (block.first_plane() + block.planes()) % planes;
        if (block.below() >= 0) range.below[k] = field.data() + k * n + below * plane;
        if (block.above() >= 0) range.above[k] = field.data() + k * n + above * plane;
      }
      return range;
    };
    const std::vector<double> y_block = local(y), lambda_block = local(lambda);
    std::vector<double> block_rates(2 * m), block_vjp(2 * m), row_sums(4 * m / grid.size(grid.axes() - 1));
    gray_scott_rates(grid, ghosts(y), y_block.data(), p.data(), block_rates.data());
    gray_scott_vjp(grid, ghosts(lambda), y_block.data(), p.data(), lambda_block.data(), block_vjp.data(),
                   row_sums.data());
    CHECK(same_bits(block_rates.data(), local(rates).data(), 2 * m));
    CHECK(same_bits(block_vjp.data(), local(vjp_y).data(), 2 * m));
    for (std::size_t i = 0; i < row_sums.size(); i += 4)
      for (std::size_t j = 0; j < 4; ++j) folded[j] += row_sums[i + j];
  }
  CHECK(same_bits(folded, vjp_p.data(), 4));
}

}  // namespace

TEST_CASE("Gray–Scott over blocks of planes is bitwise the whole grid, dJ/dp included") {
  for (int count = 1; count <= 4; ++count) {
    check_blocks(Grid({12, 20}, {2.5, 2.5}, {Boundary::periodic, Boundary::periodic}), count);
    check_blocks(Grid({6, 300}, {2.5, 2.5}, {Boundary::neumann, Boundary::periodic}), count);  // rows of 2 blocks
    check_blocks(Grid({5, 4, 6}, {1.0, 1.0, 1.0}, {Boundary::dirichlet, Boundary::neumann, Boundary::periodic}),
                 count);
    check_blocks(Grid({7, 3, 5}, {1.0, 1.0, 1.0}, {Boundary::periodic, Boundary::dirichlet, Boundary::neumann}),
                 count);
  }
}
