#pragma once
// Krylov methods for A x = b with a preconditioner M (preconditioners.hpp, multigrid.hpp):
//   gmres               restarted GMRES(m), preconditioned on the right (so the residual it
//                       minimises is b - A x itself), modified Gram–Schmidt, Givens
//                       rotations (Saad and Schultz 1986); for any nonsingular A. It keeps
//                       the preconditioned directions M^{-1} v_k, as flexible GMRES does
//                       (Saad 1993), so the update x += M^{-1} V y costs no extra V-cycle.
//   conjugate_gradient  preconditioned CG; for symmetric positive definite A and M (a
//                       stage matrix I - h a_ii J of a diffusion, multigrid's V-cycle).
// Both start from x = 0 and stop when ||b - A x||_2 <= tolerance ||b||_2, so x is a
// function of A, M and b alone: bitwise the same in a recomputation (checkpointing).
#include <cstddef>
#include <vector>

#include "solvers/krylov/csr_matrix.hpp"
#include "solvers/krylov/preconditioners.hpp"

namespace backsweep::krylov {

struct KrylovResult {
  bool converged = false;
  std::size_t iterations = 0;
  double residual = 0.0;  // ||b - A x|| / ||b|| of the x returned (recomputed, not recurred)
};

// Work vectors kept from one solve to the next (no allocation per step once sized).
struct KrylovWork {
  std::vector<std::vector<double>> basis, preconditioned;  // v_k, and gmres' M^{-1} v_k
  std::vector<double> r, z, w, p, q;
};

// Solves A x = b; b is overwritten by x. A null M is no preconditioner.
KrylovResult gmres(const CsrMatrix& a, Preconditioner* m, double* b, double tolerance, std::size_t restart,
                   std::size_t max_iterations, KrylovWork& work);
KrylovResult conjugate_gradient(const CsrMatrix& a, Preconditioner* m, double* b, double tolerance,
                                std::size_t max_iterations, KrylovWork& work);

}  // namespace backsweep::krylov
