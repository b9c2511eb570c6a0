#pragma once
// Preconditioners M ≈ A for the Krylov methods (krylov_methods.hpp): apply() computes
// z = M^{-1} r. set_matrix() builds M from A; A must outlive the next apply().
//   Jacobi     M = diag(A): a few operations a point; for mildly stiff systems.
//   Ilu0       incomplete LU on A's own pattern: stronger on small and 1-D/2-D systems,
//              but its iteration counts grow with the grid (a 3-D diffusion at h ≫ the
//              explicit limit needs multigrid, multigrid.hpp).
// Each is deterministic: z is a function of A and r alone (bitwise across runs).
#include <cstddef>
#include <vector>

#include "solvers/krylov/csr_matrix.hpp"

namespace backsweep::krylov {

class Preconditioner {
 public:
  virtual ~Preconditioner() = default;
  // False when A cannot be preconditioned so (a zero pivot or diagonal).
  virtual bool set_matrix(const CsrMatrix& a) = 0;
  virtual void apply(const double* r, double* z) = 0;
};

class Jacobi final : public Preconditioner {
 public:
  bool set_matrix(const CsrMatrix& a) override;
  void apply(const double* r, double* z) override;

 private:
  std::vector<double> inverse_diagonal_;
};

class Ilu0 final : public Preconditioner {
 public:
  bool set_matrix(const CsrMatrix& a) override;
  void apply(const double* r, double* z) override;

 private:
  CsrMatrix lu_;  // L (unit, strictly lower) and U in A's pattern
  std::vector<std::size_t> diagonal_;
};

}  // namespace backsweep::krylov
