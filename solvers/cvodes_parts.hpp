#pragma once
// The parts of a CVODES solve that cvodes.cpp (integrate, forward sensitivities) and
// cvodes_adjoint.cpp share: owners of the SUNDIALS objects, what the callbacks reach
// through user data, the forward callbacks, and the set-up, failure and counts of a
// solve. SUNDIALS' headers are seen by these three files only (not installed).
#include <cvodes/cvodes.h>
#include <nvector/nvector_serial.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunlinsol/sunlinsol_klu.h>
#include <sunlinsol/sunlinsol_pcg.h>
#include <sunlinsol/sunlinsol_spgmr.h>
#include <sunmatrix/sunmatrix_dense.h>
#include <sunmatrix/sunmatrix_sparse.h>
#include <sunnonlinsol/sunnonlinsol_fixedpoint.h>

#include <exception>
#include <memory>
#include <stdexcept>
#include <vector>

#include "solvers/cvodes.hpp"

namespace backsweep::detail {

// Owners of the SUNDIALS objects, freed in reverse order of creation.
struct SundialsContext {
  SUNContext ctx = nullptr;
  SundialsContext() {
    if (SUNContext_Create(nullptr, &ctx) != 0) throw std::runtime_error("SUNDIALS: no context");
  }
  ~SundialsContext() { SUNContext_Free(&ctx); }
};
struct Vector {
  N_Vector v;
  Vector(std::size_t n, SUNContext ctx) : v(N_VNew_Serial(sunindextype(n), ctx)) {}
  ~Vector() { N_VDestroy(v); }
  double* data() const { return N_VGetArrayPointer(v); }
};
struct Solver {
  void* mem;
  explicit Solver(int kind, SUNContext ctx) : mem(CVodeCreate(kind, ctx)) {}
  ~Solver() { CVodeFree(&mem); }
};
// The Newton matrix and its solver: dense LU, KLU on the system's sparse pattern (CSR
// forward; the backward problem's -Jᵀ is the same arrays read as CSC), or matrix-free
// SPGMR (PCG for cg) with Jacobian-vector products by CVODES' difference quotients and
// the system's preconditioner (set_up's precondition_setup and precondition_solve).
struct LinearSystem {
  static constexpr int kKrylovDimension = 30;
  SUNMatrix matrix = nullptr;
  SUNLinearSolver solver;
  LinearSystem(N_Vector y, OdeSystem& system, bool transposed, SUNContext ctx) {
    const auto n = sunindextype(system.size());
    if (system.preconditioner(transposed)) {
      solver = system.krylov_method() == LinearSolver::cg ? SUNLinSol_PCG(y, SUN_PREC_LEFT, kKrylovDimension, ctx)
                                                          : SUNLinSol_SPGMR(y, SUN_PREC_LEFT, kKrylovDimension, ctx);
    } else if (const SparsityPattern* pattern = system.sparse_pattern()) {
      matrix = SUNSparseMatrix(n, n, sunindextype(pattern->nnz()), transposed ? CSC_MAT : CSR_MAT, ctx);
      solver = SUNLinSol_KLU(y, matrix, ctx);
    } else {
      matrix = SUNDenseMatrix(n, n, ctx);
      solver = SUNLinSol_Dense(y, matrix, ctx);
    }
  }
  ~LinearSystem() {
    SUNLinSolFree(solver);
    if (matrix) SUNMatDestroy(matrix);
  }
};
struct FixedPoint {
  SUNNonlinearSolver solver;
  FixedPoint(N_Vector y, SUNContext ctx) : solver(SUNNonlinSol_FixedPoint(y, 0, ctx)) {}
  ~FixedPoint() { SUNNonlinSolFree(solver); }
};

// What the callbacks reach through user data. An exception must not cross SUNDIALS' C
// frames: a callback keeps it here and fails unrecoverably; the caller rethrows it.
struct Callbacks {
  OdeSystem& system;
  std::vector<double> dfdy, vjp_y, vjp_p;
  std::exception_ptr error;
  const SensitivityDirections* directions = nullptr;
  std::vector<double> sensitivities, derivatives;  // count x n each
  std::vector<double> forward_jacobian = {}, backward_jacobian = {};  // the preconditioners' J values
  void rethrow() const {
    if (error) std::rethrow_exception(error);
  }
};

template <class F>
int guarded(void* data, F&& f) {
  try {
    return f(*static_cast<Callbacks*>(data));
  } catch (...) {
    static_cast<Callbacks*>(data)->error = std::current_exception();
    return -1;
  }
}

// Whether x[0..n) are all finite.
bool finite(const double* x, std::size_t n);

// f(t, y): 1 (recoverable: CVODES retries smaller) where it is not finite.
int rhs(realtype t, N_Vector y, N_Vector ydot, void* data);

// J from our derivatives, times `sign`; with `transpose`, Jᵀ. Dense: column-major from
// our row-major. Sparse: our CSR arrays, which the backward matrix reads as CSC (= Jᵀ).
void fill(Callbacks& c, realtype t, N_Vector y, SUNMatrix J, bool transpose, double sign);

// df/dy for the forward Newton matrix.
int jacobian(realtype t, N_Vector y, N_Vector, SUNMatrix J, void* data, N_Vector, N_Vector, N_Vector);

// The preconditioner of a Krylov method: J (on the system's pattern) at (t, y) unless
// CVODES says the last one will do (jok), then I - gamma J (forward) or I + gamma J, whose
// transpose is the backward Newton matrix I + gamma Jᵀ; 1 (recoverable) when it fails.
int set_up_preconditioner(Callbacks& c, bool backward, realtype t, N_Vector y, booleantype jok, booleantype* jcur,
                          realtype gamma);
int precondition_setup(realtype t, N_Vector y, N_Vector, booleantype jok, booleantype* jcur, realtype gamma,
                       void* data);
int precondition_solve(realtype, N_Vector, N_Vector, N_Vector r, N_Vector z, realtype, realtype, int, void* data);

// A failed CVODES call as an IntegrateResult, naming `where` and the flag.
IntegrateResult failure(int flag, double t, const char* where);

// Tolerances, limits and the nonlinear solver of a forward solve.
// With `newton`, Adams too iterates by Newton (sensitivities need it); else by fixed point.
bool set_up(void* mem, bool bdf, N_Vector y, const IntegrateOptions& options, Callbacks& callbacks,
            std::unique_ptr<LinearSystem>& linear, std::unique_ptr<FixedPoint>& fixed_point, SUNContext ctx,
            bool newton = false);

// CVODES' counts of a forward solve (Jacobians only where it iterated by Newton).
void read_counts(void* mem, bool newton, CvodesCounts& counts);

}  // namespace backsweep::detail
