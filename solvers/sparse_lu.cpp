#include "solvers/sparse_lu.hpp"

#include <klu.h>

#include <algorithm>
#include <climits>
#include <memory>
#include <stdexcept>
#include <vector>

namespace backsweep {

namespace {

// Below this reciprocal pivot ratio (min |u_ii| / max |u_ii|) reused pivots are not
// trusted: SUNDIALS' threshold, unit roundoff^(2/3).
constexpr double kPivotRatioFloor = 3.7e-11;
// Below this reciprocal pivot growth (max |a_ij| / max |u_ij| per column, the smallest),
// reused pivots have let the factors grow by 10^8 and would cost that many digits.
constexpr double kPivotGrowthFloor = 1e-8;

struct FreeNumeric {
  klu_common* common;
  void operator()(klu_numeric* numeric) const { klu_free_numeric(&numeric, common); }
};
using Numeric = std::unique_ptr<klu_numeric, FreeNumeric>;

}  // namespace

struct SparseLU::Factors {
  // Caller's pattern, to notice a change (the analysis below belongs to one pattern).
  std::vector<std::size_t> pattern_start;
  std::vector<std::uint32_t> pattern_index;
  // I + scale * J in CSR with the diagonal always present: KLU reads it as the CSC
  // arrays of the transpose, so solve and solve_transposed swap KLU's two solves.
  std::vector<int> start, index;
  std::vector<double> values;
  std::vector<int> slot;      // per pattern entry: its position in values, -1 for parameters
  std::vector<int> diagonal;  // per row: the position of its diagonal entry
  klu_common common;
  klu_symbolic* symbolic = nullptr;
  Numeric pivots{nullptr, FreeNumeric{&common}};  // the first matrix's, refactored in place
  Numeric fresh{nullptr, FreeNumeric{&common}};   // a matrix whose pivots had to be chosen anew
  klu_numeric* active = nullptr;                  // the factors of the last matrix

  Factors() { klu_defaults(&common); }
  ~Factors() {
    pivots.reset();
    fresh.reset();
    if (symbolic) klu_free_symbolic(&symbolic, &common);
  }
  Factors(const Factors&) = delete;
  Factors& operator=(const Factors&) = delete;

  bool same_pattern(std::span<const std::size_t> row_start, std::span<const std::uint32_t> column_index) const {
    return std::ranges::equal(row_start, pattern_start) && std::ranges::equal(column_index, pattern_index);
  }

  // The structure of I + J's state block, and its ordering (AMD on the block triangular
  // form's blocks): once per pattern.
  void analyze(std::size_t n, std::span<const std::size_t> row_start, std::span<const std::uint32_t> column_index) {
    if (n >= std::size_t(INT_MAX) || column_index.size() + n >= std::size_t(INT_MAX))
      throw std::length_error("sparse LU: KLU indices are 32-bit");
    // Forgotten until the analysis succeeds: a throw below leaves no half-built state
    // that a later call would take for this pattern's.
    pattern_start.clear();
    pattern_index.clear();
    start.assign(1, 0);
    index.clear();
    slot.assign(column_index.size(), -1);
    diagonal.assign(n, -1);
    for (std::size_t i = 0; i < n; ++i) {
      bool diagonal_done = false;
      auto add_diagonal = [&] {
        diagonal[i] = int(index.size());
        index.push_back(int(i));
        diagonal_done = true;
      };
      for (std::size_t k = row_start[i]; k < row_start[i + 1]; ++k) {
        const std::size_t column = column_index[k];
        if (column >= n) continue;
        if (!diagonal_done && column >= i) {
          if (column == i) {
            slot[k] = int(index.size());
            add_diagonal();
            continue;
          }
          add_diagonal();
        }
        slot[k] = int(index.size());
        index.push_back(int(column));
      }
      if (!diagonal_done) add_diagonal();
      start.push_back(int(index.size()));
    }
    values.resize(index.size());
    pivots.reset();
    fresh.reset();
    active = nullptr;
    if (symbolic) klu_free_symbolic(&symbolic, &common);
    symbolic = klu_analyze(int(n), start.data(), index.data(), &common);
    if (!symbolic) throw std::runtime_error("sparse LU: KLU could not analyse the pattern");
    pattern_start.assign(row_start.begin(), row_start.end());
    pattern_index.assign(column_index.begin(), column_index.end());
  }
};

SparseLU::SparseLU() : factors_(std::make_unique<Factors>()) {}
SparseLU::~SparseLU() = default;
SparseLU::SparseLU(SparseLU&&) noexcept = default;
SparseLU& SparseLU::operator=(SparseLU&&) noexcept = default;

bool SparseLU::factor(std::size_t n, std::span<const std::size_t> row_start,
                      std::span<const std::uint32_t> column_index, std::span<const double> values,
                      double scale) {
  Factors& f = *factors_;
  if (f.diagonal.size() != n || !f.same_pattern(row_start, column_index)) f.analyze(n, row_start, column_index);
  std::ranges::fill(f.values, 0.0);
  for (std::size_t k = 0; k < f.slot.size(); ++k)
    if (f.slot[k] >= 0) f.values[std::size_t(f.slot[k])] = scale * values[k];
  for (int d : f.diagonal) f.values[std::size_t(d)] += 1.0;

  // The first matrix chooses the pivots; later ones reuse them (klu_refactor: no search,
  // no symbolic work), as SUNDIALS' KLU module does, unless the reciprocal pivot ratio or
  // the reciprocal pivot growth says they have gone bad, when this matrix alone is
  // factored afresh. The factors thus depend on this matrix and the first one only, never
  // on those between: a gradient is the same whichever checkpoint schedule replays its steps.
  f.active = nullptr;
  if (!f.pivots) {
    f.pivots.reset(klu_factor(f.start.data(), f.index.data(), f.values.data(), f.symbolic, &f.common));
    if (f.pivots) f.active = f.pivots.get();
    return f.active != nullptr;
  }
  if (klu_refactor(f.start.data(), f.index.data(), f.values.data(), f.symbolic, f.pivots.get(), &f.common) &&
      klu_rcond(f.symbolic, f.pivots.get(), &f.common) && f.common.rcond > kPivotRatioFloor &&
      klu_rgrowth(f.start.data(), f.index.data(), f.values.data(), f.symbolic, f.pivots.get(), &f.common) &&
      f.common.rgrowth > kPivotGrowthFloor) {
    f.active = f.pivots.get();
    return true;
  }
  f.fresh.reset(klu_factor(f.start.data(), f.index.data(), f.values.data(), f.symbolic, &f.common));
  f.active = f.fresh.get();
  return f.active != nullptr;
}

// KLU holds the transpose (see Factors), so A x = b is its transposed solve.
void SparseLU::solve(double* b) const {
  Factors& f = *factors_;
  if (!f.active || !klu_tsolve(f.symbolic, f.active, int(f.diagonal.size()), 1, b, &f.common))
    throw std::logic_error("sparse LU: solve without a successful factorization");
}

void SparseLU::solve_transposed(double* b) const {
  Factors& f = *factors_;
  if (!f.active || !klu_solve(f.symbolic, f.active, int(f.diagonal.size()), 1, b, &f.common))
    throw std::logic_error("sparse LU: solve without a successful factorization");
}

}  // namespace backsweep
