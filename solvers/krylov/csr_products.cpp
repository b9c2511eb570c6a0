// CsrMatrix's products and Gauss–Seidel sweeps: by diagonal over the rows stored so (in
// blocks that stay in the first-level cache, each diagonal's loop vectorised), by
// compressed rows over the rest.
#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>

#include "models/avx2_clone.hpp"
#include "solvers/krylov/csr_matrix.hpp"

namespace backsweep::krylov {
namespace {

constexpr std::size_t kBlock = 512;  // rows a block of a diagonal sweep
constexpr std::size_t kMaxDiagonals = 32;

using Block = std::array<double, kBlock>;

// The rows of [first, last) where diagonal d has a column inside 0 .. columns - 1.
std::pair<std::size_t, std::size_t> span_of(std::ptrdiff_t offset, std::size_t first, std::size_t last,
                                            std::size_t columns) {
  const std::size_t lo = offset < 0 ? std::max(first, std::size_t(-offset)) : first;
  const std::size_t hi = offset > 0 ? std::min(last, columns > std::size_t(offset) ? columns - offset : 0) : last;
  return {lo, std::max(lo, hi)};
}

// sum[i - first] -= A(i, i + offset) x[i + offset] for the diagonals d but `skip`, in
// ascending order (a row's columns in order), rows first .. last - 1; then the entries in
// columns past the stored rows (the last in their rows), by compressed rows. Built for AVX2
// too, without contracting to FMA: the same values on either.
BACKSWEEP_AVX2_CLONE void subtract_diagonals(const CsrMatrix& a, const double* x, std::size_t first,
                                             std::size_t last, double* sum, std::size_t skip = SIZE_MAX) {
  const CsrMatrix::Diagonals& dia = a.diagonals;
  for (std::size_t d = 0; d < dia.offset.size(); ++d) {
    if (d == skip) continue;
    const std::ptrdiff_t offset = dia.offset[d];
    const auto [lo, hi] = span_of(offset, first, last, a.columns);
    if (lo == hi) continue;
    const double* v = dia.value.data() + (dia.start[d] + std::ptrdiff_t(lo));
    const double* shifted = x + (std::ptrdiff_t(lo) + offset);  // x at row lo's column
    double* to = sum + (lo - first);
    for (std::size_t k = 0; k < hi - lo; ++k) to[k] -= v[k] * shifted[k];
  }
  if (dia.rows == a.columns) return;  // no such columns
  for (std::size_t i = first; i < last; ++i) {
    std::size_t k = a.row_start[i + 1];
    while (k > a.row_start[i] && a.column[k - 1] >= dia.rows) --k;
    for (; k < a.row_start[i + 1]; ++k) sum[i - first] -= a.value[k] * x[a.column[k]];
  }
}

void compressed_rows(const CsrMatrix& a, const double* b, const double* x, double* y, std::size_t first) {
  for (std::size_t i = first; i < a.rows; ++i) {
    double sum = b ? b[i] : 0.0;
    for (std::size_t k = a.row_start[i]; k < a.row_start[i + 1]; ++k) sum -= a.value[k] * x[a.column[k]];
    y[i] = b ? sum : 0.0 - sum;  // without b, A x as the diagonals give it
  }
}

void relax_row(const CsrMatrix& a, const double* b, double* x, const double* inverse_diagonal, std::size_t i) {
  double sum = b[i];
  for (std::size_t k = a.row_start[i]; k < a.row_start[i + 1]; ++k) sum -= a.value[k] * x[a.column[k]];
  x[i] += sum * inverse_diagonal[i];
}

// The diagonal whose offset is `offset`, or SIZE_MAX.
std::size_t diagonal_at(const CsrMatrix::Diagonals& dia, std::ptrdiff_t offset) {
  const auto at = std::find(dia.offset.begin(), dia.offset.end(), offset);
  return at == dia.offset.end() ? SIZE_MAX : std::size_t(at - dia.offset.begin());
}

// Rows a block of a sweep may hold: all but the neighbour across `direction` must lie
// outside it, so their values are final (or untouched) while the block is summed.
std::size_t sweep_block(const CsrMatrix::Diagonals& dia, int direction) {
  std::size_t block = kBlock;
  for (const std::ptrdiff_t offset : dia.offset)
    if (-offset * direction >= 2) block = std::min(block, std::size_t(-offset * direction));
  return block;
}

// Gauss–Seidel over the stored rows, in blocks: each row's terms but its neighbour's
// across `direction` (the previous row in the sweep) summed for the whole block, then the
// recurrence through that neighbour, x_i = (x_i + s_i / a_ii) - (a_i,from / a_ii) x_from,
// row by row.
void diagonal_sweep(const CsrMatrix& a, const double* b, double* x, const double* inverse_diagonal, int direction) {
  const CsrMatrix::Diagonals& dia = a.diagonals;
  const std::size_t n = dia.rows, block = sweep_block(dia, direction);
  const std::size_t near = diagonal_at(dia, -direction);
  const std::ptrdiff_t v = near == SIZE_MAX ? 0 : dia.start[near];  // the neighbour's at row i: value[v + i]
  Block sum;
  for (std::size_t done = 0; done < n; done += block) {
    const std::size_t first = direction > 0 ? done : n - std::min(n, done + block);
    const std::size_t last = direction > 0 ? std::min(n, done + block) : n - done;
    std::copy(b + first, b + last, sum.begin());
    subtract_diagonals(a, x, first, last, sum.data(), near);
    for (std::size_t i = first; i < last; ++i) x[i] += sum[i - first] * inverse_diagonal[i];
    if (near == SIZE_MAX) continue;
    const std::size_t start = direction > 0 ? first : last - 1;
    const std::size_t from = start - direction;  // wraps past 0 at row 0: no neighbour there
    const std::size_t no_neighbour = from < a.columns ? 0 : 1;
    double previous = x[no_neighbour ? start : from];
    for (std::size_t step = no_neighbour; step < last - first; ++step) {
      const std::size_t i = direction > 0 ? first + step : last - 1 - step;
      previous = x[i] -= dia.value[v + std::ptrdiff_t(i)] * inverse_diagonal[i] * previous;
    }
  }
}

// Whether diagonal `below` (offset < 0) equals, bitwise, the diagonal `above` at -offset
// read at row i + offset: A(i, i + offset) = A(i + offset, i) in every row that has it.
bool mirrors(const double* below, const double* above, std::ptrdiff_t offset, std::size_t rows) {
  for (std::size_t i = std::size_t(-offset); i < rows; ++i)
    if (std::bit_cast<std::uint64_t>(below[i]) != std::bit_cast<std::uint64_t>(above[i - std::size_t(-offset)]))
      return false;
  return true;
}

}  // namespace

void CsrMatrix::multiply(const double* x, double* y) const {
  Block sum;
  for (std::size_t first = 0; first < diagonals.rows; first += kBlock) {
    const std::size_t last = std::min(diagonals.rows, first + kBlock);
    std::fill(sum.begin(), sum.end(), 0.0);
    subtract_diagonals(*this, x, first, last, sum.data());
    for (std::size_t i = first; i < last; ++i) y[i] = 0.0 - sum[i - first];  // 0 - (0 - a - b) is a + b exactly
  }
  compressed_rows(*this, nullptr, x, y, diagonals.rows);
}

void CsrMatrix::residual(const double* b, const double* x, double* r) const {
  Block sum;
  for (std::size_t first = 0; first < diagonals.rows; first += kBlock) {
    const std::size_t last = std::min(diagonals.rows, first + kBlock);
    std::copy(b + first, b + last, sum.begin());
    subtract_diagonals(*this, x, first, last, sum.data());
    std::copy(sum.begin(), sum.begin() + (last - first), r + first);
  }
  compressed_rows(*this, b, x, r, diagonals.rows);
}

void CsrMatrix::gauss_seidel(const double* b, double* x, const double* inverse_diagonal, bool forward) const {
  if (forward) {
    diagonal_sweep(*this, b, x, inverse_diagonal, +1);
    for (std::size_t i = diagonals.rows; i < rows; ++i) relax_row(*this, b, x, inverse_diagonal, i);
  } else {
    for (std::size_t i = rows; i-- > diagonals.rows;) relax_row(*this, b, x, inverse_diagonal, i);
    diagonal_sweep(*this, b, x, inverse_diagonal, -1);
  }
}

void CsrMatrix::store_diagonals(std::size_t leading_rows) {
  diagonals = {};
  leading_rows = std::min(leading_rows, rows);
  Diagonals dia;
  dia.rows = leading_rows;
  std::size_t stored = 0;
  for (std::size_t i = 0; i < leading_rows; ++i)
    for (std::size_t k = row_start[i]; k < row_start[i + 1] && column[k] < leading_rows; ++k, ++stored) {
      const std::ptrdiff_t offset = std::ptrdiff_t(column[k]) - std::ptrdiff_t(i);
      const auto at = std::lower_bound(dia.offset.begin(), dia.offset.end(), offset);
      if (at != dia.offset.end() && *at == offset) continue;
      if (dia.offset.size() == kMaxDiagonals) return;
      dia.offset.insert(at, offset);
    }
  if (2 * stored < dia.offset.size() * leading_rows) return;  // mostly zeros
  std::vector<double> full(dia.offset.size() * leading_rows, 0.0);
  for (std::size_t i = 0; i < leading_rows; ++i)
    for (std::size_t k = row_start[i], d = 0; k < row_start[i + 1] && column[k] < leading_rows; ++k) {
      while (dia.offset[d] != std::ptrdiff_t(column[k]) - std::ptrdiff_t(i)) ++d;  // both ascending
      full[d * leading_rows + i] = value[k];
    }
  // Each diagonal kept, ascending, but one below that mirrors its partner above: moved
  // down in place, so the values are written once.
  std::vector<bool> mirrored(dia.offset.size(), false);
  dia.start.assign(dia.offset.size(), 0);
  std::size_t kept = 0;
  for (std::size_t d = 0; d < dia.offset.size(); ++d) {
    const std::ptrdiff_t offset = dia.offset[d];
    const std::size_t partner = diagonal_at(dia, -offset);
    mirrored[d] = offset < 0 && partner != SIZE_MAX &&
                  mirrors(full.data() + d * leading_rows, full.data() + partner * leading_rows, offset, leading_rows);
    if (mirrored[d]) continue;
    if (kept != d)
      std::copy(full.begin() + d * leading_rows, full.begin() + (d + 1) * leading_rows, full.begin() + kept * leading_rows);
    dia.start[d] = std::ptrdiff_t(kept++ * leading_rows);
  }
  full.resize(kept * leading_rows);
  dia.value = std::move(full);
  for (std::size_t d = 0; d < dia.offset.size(); ++d)  // row i reads the partner's row i + offset
    if (mirrored[d]) dia.start[d] = dia.start[diagonal_at(dia, -dia.offset[d])] + dia.offset[d];
  diagonals = std::move(dia);
}

}  // namespace backsweep::krylov
