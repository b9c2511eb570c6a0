#include "solvers/krylov/multigrid.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <utility>

namespace backsweep::krylov {
namespace {

constexpr std::size_t kLargestDense = 2000;  // a coarsest level above this is smoothed
constexpr int kCoarsestSweeps = 10;

// P from the coarser level's unknowns to `fine`'s, along[a] interpolating axis a, and the
// coarser level's layout.
std::pair<CsrMatrix, GridUnknowns> prolongation(const GridUnknowns& fine, const std::vector<AxisInterpolation>& along) {
  const std::size_t axes = fine.shape.size();
  GridUnknowns coarse = fine;
  for (std::size_t a = 0; a < axes; ++a) coarse.shape[a] = along[a].coarse;
  const std::size_t fine_points = fine.points(), coarse_points = coarse.points();
  CsrMatrix p;
  p.rows = fine.size();
  p.columns = coarse.size();
  p.row_start.push_back(0);
  std::vector<std::pair<std::uint32_t, double>> row, next;
  for (std::size_t f = 0; f < fine.fields; ++f)
    for (std::size_t point = 0; point < fine_points; ++point) {
      // The row's entries as products over the axes (x fastest: the last axis).
      row.assign(1, {static_cast<std::uint32_t>(f * coarse_points), 1.0});
      std::size_t rest = point, coarse_stride = 1;
      std::array<std::size_t, 3> at{};
      for (std::size_t a = axes; a-- > 0;) {
        at[a] = rest % fine.shape[a];
        rest /= fine.shape[a];
      }
      std::array<std::size_t, 3> stride{};
      for (std::size_t a = axes; a-- > 0;) {
        stride[a] = coarse_stride;
        coarse_stride *= coarse.shape[a];
      }
      for (std::size_t a = 0; a < axes; ++a) {
        next.clear();
        for (const auto& [column, weight] : row)
          for (unsigned char e = 0; e < along[a].count[at[a]]; ++e) {
            const auto& [index, w] = along[a].entries[at[a]][e];
            next.push_back({static_cast<std::uint32_t>(column + index * stride[a]), weight * w});
          }
        row.swap(next);
      }
      std::sort(row.begin(), row.end());
      for (const auto& [column, weight] : row) {
        p.column.push_back(column);
        p.value.push_back(weight);
      }
      p.row_start.push_back(p.column.size());
    }
  for (std::size_t e = 0; e < fine.extra; ++e) {
    p.column.push_back(static_cast<std::uint32_t>(fine.fields * coarse_points + e));
    p.value.push_back(1.0);
    p.row_start.push_back(p.column.size());
  }
  return {std::move(p), std::move(coarse)};
}

bool can_coarsen(const GridUnknowns& u) {
  if (u.size() <= Multigrid::kCoarsestSize) return false;
  for (std::size_t a = 0; a < u.shape.size(); ++a)
    if (coarsens(u.shape[a], u.boundary[a])) return true;
  return false;
}

}  // namespace

Multigrid::Multigrid(GridUnknowns unknowns) {
  levels_.push_back({});
  levels_.back().unknowns = std::move(unknowns);
  while (can_coarsen(levels_.back().unknowns)) {
    const GridUnknowns& fine = levels_.back().unknowns;
    std::vector<AxisInterpolation> along;
    for (std::size_t a = 0; a < fine.shape.size(); ++a)
      along.push_back(axis_interpolation(fine.shape[a], fine.boundary[a]));
    auto [p, coarse] = prolongation(fine, along);
    levels_.back().transfer = GridTransfer(fine, std::move(along));
    levels_.back().restriction = p.transposed();
    levels_.back().prolongation = std::move(p);
    levels_.push_back({});
    levels_.back().unknowns = std::move(coarse);
  }
  for (Level& level : levels_) {
    const std::size_t n = level.unknowns.size();
    level.x.resize(n);
    level.b.resize(n);
    level.r.resize(n);
  }
}

bool Multigrid::set_matrix(const CsrMatrix& a) {
  fine_ = &a;
  for (std::size_t l = 0; l < levels_.size(); ++l) {
    Level& level = levels_[l];
    if (l > 0) {
      const Level& finer = levels_[l - 1];
      level.a = product(finer.restriction, product(op(l - 1), finer.prolongation));
      level.a.column.shrink_to_fit();  // product reserved for every term, kept a whole run
      level.a.value.shrink_to_fit();
      level.a.store_diagonals(level.unknowns.size() - level.unknowns.extra);
    }
    level.diagonal = diagonal_positions(op(l));
    level.inverse_diagonal.resize(op(l).rows);
    for (std::size_t i = 0; i < op(l).rows; ++i) {
      const double d = level.diagonal[i] == SIZE_MAX ? 0.0 : op(l).value[level.diagonal[i]];
      if (d == 0.0 || !std::isfinite(d)) return false;
      level.inverse_diagonal[i] = 1.0 / d;
    }
  }
  const CsrMatrix& coarsest = op(levels_.size() - 1);
  coarsest_direct_ = coarsest.rows <= kLargestDense;
  if (coarsest_direct_) {
    const std::size_t n = coarsest.rows;
    double* dense = coarsest_.matrix(n);
    for (std::size_t i = 0; i < n * n; ++i) dense[i] = 0.0;
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t k = coarsest.row_start[i]; k < coarsest.row_start[i + 1]; ++k)
        dense[i * n + coarsest.column[k]] = coarsest.value[k];
    return coarsest_.factor();
  }
  return true;
}

// One Gauss–Seidel sweep on level l's A x = b, rows in order or in reverse.
void Multigrid::smooth(std::size_t l, bool forward) {
  Level& level = levels_[l];
  op(l).gauss_seidel(level.b.data(), level.x.data(), level.inverse_diagonal.data(), forward);
}

void Multigrid::cycle(std::size_t l) {
  Level& level = levels_[l];
  if (l + 1 == levels_.size()) {
    if (coarsest_direct_) {
      level.x = level.b;
      coarsest_.solve(level.x.data());
    } else {
      std::fill(level.x.begin(), level.x.end(), 0.0);
      for (int sweep = 0; sweep < kCoarsestSweeps; ++sweep) {
        smooth(l, true);
        smooth(l, false);
      }
    }
    return;
  }
  std::fill(level.x.begin(), level.x.end(), 0.0);
  smooth(l, true);
  op(l).residual(level.b.data(), level.x.data(), level.r.data());
  Level& coarse = levels_[l + 1];
  level.transfer.restrict_to(level.r.data(), coarse.b.data());
  cycle(l + 1);
  level.transfer.prolong(coarse.x.data(), level.r.data());
  for (std::size_t i = 0; i < level.x.size(); ++i) level.x[i] += level.r[i];
  smooth(l, false);
}

void Multigrid::apply(const double* r, double* z) {
  Level& fine = levels_.front();
  fine.b.assign(r, r + fine.b.size());
  cycle(0);
  std::copy(fine.x.begin(), fine.x.end(), z);
}

}  // namespace backsweep::krylov
