#pragma once
// SparseLU: the LU factorization of I + scale * J for a sparse J given in CSR (the state
// columns of a SparsityPattern; columns >= n, the parameters, are skipped), by Eigen's
// SparseLU (supernodal, COLAMD ordering). Implicit methods use it for the Newton and
// stage matrices of large sparse systems, where a dense LU is O(n^3). Eigen stays behind
// this header (sparse_lu.cpp), so that nvcc and light users never compile it.
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
