#pragma once
// CsrMatrix: a square or rectangular sparse matrix in compressed rows, the form the
// iterative stage solvers (krylov/) work on: the stage matrix I + scale J built from a
// SparseJacobian's values, multigrid's prolongations and Galerkin coarse operators.
//
// A stencil's matrix on a grid has a few diagonals. Its grid rows may be stored again by
// diagonal (store_diagonals): products, residuals and Gauss–Seidel sweeps then run down
// each diagonal without column indices, vectorised across rows. Products and residuals
// add each row's terms in the same order as the compressed rows do, so for a finite x they
// give the same values; a sweep takes its recurrence last in each row. A symmetric
// stencil's diagonals below the main one are read from those above: about half the bytes
// a product or sweep streams.
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

  // Rows 0 .. rows - 1 of the matrix again, by diagonal; none stored while rows is 0.
  // A diagonal below the main one that mirrors its partner above bitwise (a symmetric
  // stencil's) is not stored again: it reads the partner's values, shifted.
  struct Diagonals {
    std::size_t rows = 0;
    std::vector<std::ptrdiff_t> offset;  // column - row, ascending
    std::vector<std::ptrdiff_t> start;   // value[start[d] + i] = A(i, i + offset[d]) where that column is a stored row
    std::vector<double> value;           // the diagonals stored, rows each, 0 where A has none
  } diagonals;

  std::size_t nonzeros() const { return value.size(); }
  // y = A x.
  void multiply(const double* x, double* y) const;
  // r = b - A x.
  void residual(const double* b, const double* x, double* r) const;
  // One Gauss–Seidel sweep on A x = b, rows in order or in reverse; the diagonal's inverse given.
  void gauss_seidel(const double* b, double* x, const double* inverse_diagonal, bool forward) const;
  CsrMatrix transposed() const;  // without diagonals
  // Stores rows 0 .. leading_rows - 1 by diagonal too, where their entries in those columns
  // have at most 32 distinct offsets and fill at least half of those diagonals (else stores
  // none); entries in later columns stay by rows alone. Call it once the values are final:
  // the copy is not updated when they change.
  void store_diagonals(std::size_t leading_rows);
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
