#pragma once
// CsrMatrix: a square or rectangular sparse matrix in compressed rows, the form the
// iterative stage solvers (krylov/) work on: the stage matrix I + scale J built from a
// SparseJacobian's values, multigrid's prolongations and Galerkin coarse operators.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace backsweep::krylov {

struct CsrMatrix {
  std::size_t rows = 0, columns = 0;
  std::vector<std::size_t> row_start;  // rows + 1 offsets
  std::vector<std::uint32_t> column;   // sorted within a row
  std::vector<double> value;

  std::size_t nonzeros() const { return value.size(); }
  // y = A x.
  void multiply(const double* x, double* y) const;
  // r = b - A x.
  void residual(const double* b, const double* x, double* r) const;
  CsrMatrix transposed() const;
};

// I + scale J, J square n x n given by CSR rows whose columns >= n (the parameters of a
// SparsityPattern) are skipped; the diagonal is stored in every row, present in J or not.
CsrMatrix identity_plus(std::size_t n, std::span<const std::size_t> row_start,
                        std::span<const std::uint32_t> column_index, std::span<const double> values, double scale);

// A B (Gustavson's row-by-row product; columns sorted).
CsrMatrix product(const CsrMatrix& a, const CsrMatrix& b);

// The position of each row's diagonal entry (SIZE_MAX where a row has none).
std::vector<std::size_t> diagonal_positions(const CsrMatrix& a);

}  // namespace backsweep::krylov
