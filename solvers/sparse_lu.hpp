#pragma once
// SparseLU: the LU factorization of I + scale * J for a sparse J given in CSR (the state
// columns of a SparsityPattern; columns >= n, the parameters, are skipped), by SuiteSparse
// KLU. Implicit methods use it for the Newton and stage matrices of large sparse systems,
// where a dense LU is O(n^3). KLU rather than Eigen's SparseLU: these matrices are very
// sparse with little fill (stencils and reaction terms), where KLU's left-looking
// factorization and its refactorization with pivots chosen once do far less work than
// Eigen's supernodal one (bench_stiff_reaction_diffusion runs 2.9x faster on KLU). KLU
// stays behind this header (sparse_lu.cpp).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

namespace backsweep {

class SparseLU {
 public:
  SparseLU();
  ~SparseLU();
  SparseLU(SparseLU&&) noexcept;
  SparseLU& operator=(SparseLU&&) noexcept;

  // Factors I + scale * J (n x n) from J's CSR rows; false when singular.
  bool factor(std::size_t n, std::span<const std::size_t> row_start,
              std::span<const std::uint32_t> column_index, std::span<const double> values, double scale);
  void solve(double* b) const;             // b := A^{-1} b
  void solve_transposed(double* b) const;  // b := A^{-T} b

 private:
  struct Factors;
  std::unique_ptr<Factors> factors_;
};

}  // namespace backsweep
