#include "solvers/krylov/preconditioners.hpp"

#include <cmath>
#include <cstdint>

namespace backsweep::krylov {

bool Jacobi::set_matrix(const CsrMatrix& a) {
  const std::vector<std::size_t> at = diagonal_positions(a);
  inverse_diagonal_.resize(a.rows);
  for (std::size_t i = 0; i < a.rows; ++i) {
    const double d = at[i] == SIZE_MAX ? 0.0 : a.value[at[i]];
    if (d == 0.0 || !std::isfinite(d)) return false;
    inverse_diagonal_[i] = 1.0 / d;
  }
  return true;
}

void Jacobi::apply(const double* r, double* z) {
  for (std::size_t i = 0; i < inverse_diagonal_.size(); ++i) z[i] = r[i] * inverse_diagonal_[i];
}

// IKJ ILU(0) (Saad, Iterative Methods, algorithm 10.4): row i eliminates its lower entries
// with the rows above, keeping only entries already in A's pattern.
bool Ilu0::set_matrix(const CsrMatrix& a) {
  lu_ = {a.rows, a.columns, a.row_start, a.column, a.value, {}};  // factored in place below, by rows
  diagonal_ = diagonal_positions(lu_);
  const std::size_t n = lu_.rows;
  std::vector<std::size_t> where(n, SIZE_MAX);  // column -> position in row i
  for (std::size_t i = 0; i < n; ++i) {
    if (diagonal_[i] == SIZE_MAX) return false;
    for (std::size_t k = lu_.row_start[i]; k < lu_.row_start[i + 1]; ++k) where[lu_.column[k]] = k;
    for (std::size_t k = lu_.row_start[i]; k < lu_.row_start[i + 1] && lu_.column[k] < i; ++k) {
      const std::uint32_t j = lu_.column[k];
      const double pivot = lu_.value[diagonal_[j]];
      lu_.value[k] /= pivot;
      for (std::size_t l = diagonal_[j] + 1; l < lu_.row_start[j + 1]; ++l)
        if (const std::size_t at = where[lu_.column[l]]; at != SIZE_MAX) lu_.value[at] -= lu_.value[k] * lu_.value[l];
    }
    for (std::size_t k = lu_.row_start[i]; k < lu_.row_start[i + 1]; ++k) where[lu_.column[k]] = SIZE_MAX;
    const double d = lu_.value[diagonal_[i]];
    if (d == 0.0 || !std::isfinite(d)) return false;
  }
  return true;
}

void Ilu0::apply(const double* r, double* z) {
  const std::size_t n = lu_.rows;
  for (std::size_t i = 0; i < n; ++i) {  // L y = r, unit diagonal
    double sum = r[i];
    for (std::size_t k = lu_.row_start[i]; k < diagonal_[i]; ++k) sum -= lu_.value[k] * z[lu_.column[k]];
    z[i] = sum;
  }
  for (std::size_t i = n; i-- > 0;) {  // U z = y
    double sum = z[i];
    for (std::size_t k = diagonal_[i] + 1; k < lu_.row_start[i + 1]; ++k) sum -= lu_.value[k] * z[lu_.column[k]];
    z[i] = sum / lu_.value[diagonal_[i]];
  }
}

}  // namespace backsweep::krylov
