#include "solvers/cvodes_parts.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>

namespace backsweep::detail {

bool finite(const double* x, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
    if (!std::isfinite(x[i])) return false;
  return true;
}

int rhs(realtype t, N_Vector y, N_Vector ydot, void* data) {
  return guarded(data, [&](Callbacks& c) {
    c.system.rhs(t, N_VGetArrayPointer(y), N_VGetArrayPointer(ydot));
    return finite(N_VGetArrayPointer(ydot), c.system.size()) ? 0 : 1;  // 1: recoverable
  });
}

// J from our derivatives, times `sign`; with `transpose`, Jᵀ. Dense: column-major from
// our row-major. Sparse: our CSR arrays, which the backward matrix reads as CSC (= Jᵀ).
void fill(Callbacks& c, realtype t, N_Vector y, SUNMatrix J, bool transpose, double sign) {
  const std::size_t n = c.system.size();
  if (const SparsityPattern* pattern = c.system.sparse_pattern()) {
    sunindextype* starts = SUNSparseMatrix_IndexPointers(J);
    sunindextype* indices = SUNSparseMatrix_IndexValues(J);
    double* values = SUNSparseMatrix_Data(J);
    for (std::size_t i = 0; i <= n; ++i) starts[i] = sunindextype(pattern->row_start[i]);
    for (std::size_t k = 0; k < pattern->nnz(); ++k) indices[k] = sunindextype(pattern->column_index[k]);
    c.system.sparse_jacobian(t, N_VGetArrayPointer(y), values);
    if (sign != 1.0)
      for (std::size_t k = 0; k < pattern->nnz(); ++k) values[k] *= sign;
    return;
  }
  c.dfdy.resize(n * n);
  c.system.jacobian(t, N_VGetArrayPointer(y), c.dfdy.data());
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j)
      SM_ELEMENT_D(J, sunindextype(i), sunindextype(j)) = sign * (transpose ? c.dfdy[j * n + i] : c.dfdy[i * n + j]);
}

int jacobian(realtype t, N_Vector y, N_Vector, SUNMatrix J, void* data, N_Vector, N_Vector, N_Vector) {
  return guarded(data, [&](Callbacks& c) {
    fill(c, t, y, J, false, 1.0);
    return 0;
  });
}

int set_up_preconditioner(Callbacks& c, bool backward, realtype t, N_Vector y, booleantype jok, booleantype* jcur,
                          realtype gamma) {
  const SparsityPattern& pattern = *c.system.sparse_pattern();
  std::vector<double>& values = backward ? c.backward_jacobian : c.forward_jacobian;
  *jcur = !jok || values.empty();
  if (*jcur) {
    values.resize(pattern.nnz());
    c.system.sparse_jacobian(t, N_VGetArrayPointer(y), values.data());
  }
  krylov::KrylovStageSolver& preconditioner = *c.system.preconditioner(backward);
  const bool built = preconditioner.factor(c.system.size(), pattern.row_start, pattern.column_index, values,
                                           backward ? gamma : -gamma) &&
                     (!backward || preconditioner.prepare_transposed());
  if (!built && !preconditioner.refusal().empty())  // cg on a matrix that is not symmetric: not recoverable
    throw std::invalid_argument(std::string(to_string(c.system.krylov_method())) + ": " + preconditioner.refusal());
  return built ? 0 : 1;
}

int precondition_setup(realtype t, N_Vector y, N_Vector, booleantype jok, booleantype* jcur, realtype gamma,
                       void* data) {
  return guarded(data, [&](Callbacks& c) { return set_up_preconditioner(c, false, t, y, jok, jcur, gamma); });
}

int precondition_solve(realtype, N_Vector, N_Vector, N_Vector r, N_Vector z, realtype, realtype, int, void* data) {
  return guarded(data, [&](Callbacks& c) {
    c.system.preconditioner(false)->precondition(N_VGetArrayPointer(r), N_VGetArrayPointer(z), false);
    return 0;
  });
}

IntegrateResult failure(int flag, double t, const char* where) {
  IntegrateResult result;
  result.status = flag == CV_TOO_MUCH_WORK ? IntegrateStatus::max_steps_reached
                  : flag == CV_TOO_CLOSE || flag == CV_ERR_FAILURE || flag == CV_CONV_FAILURE
                      ? IntegrateStatus::step_size_too_small
                      : IntegrateStatus::non_finite_state;
  result.t = t;
  // The flag's name is malloc'ed by SUNDIALS: the caller frees it.
  const std::unique_ptr<char, decltype(&std::free)> name(CVodeGetReturnFlagName(flag), &std::free);
  result.message = std::string("CVODES ") + where + " failed at t = " + std::to_string(t) + ": " + name.get();
  return result;
}

// Tolerances, limits and the nonlinear solver of a forward solve.
// With `newton`, Adams too iterates by Newton (sensitivities need it); else by fixed point.
bool set_up(void* mem, bool bdf, N_Vector y, const IntegrateOptions& options, Callbacks& callbacks,
            std::unique_ptr<LinearSystem>& linear, std::unique_ptr<FixedPoint>& fixed_point, SUNContext ctx,
            bool newton) {
  if (CVodeInit(mem, rhs, options.t0, y) != CV_SUCCESS) return false;
  if (CVodeSStolerances(mem, options.rtol, options.atol) != CV_SUCCESS) return false;
  CVodeSetUserData(mem, &callbacks);
  CVodeSetMaxNumSteps(mem, long(options.max_steps));
  CVodeSetStopTime(mem, options.t1);
  if (options.max_step < INFINITY) CVodeSetMaxStep(mem, options.max_step);
  if (options.initial_step > 0) CVodeSetInitStep(mem, options.initial_step);
  if (bdf || newton) {
    linear = std::make_unique<LinearSystem>(y, callbacks.system, false, ctx);
    if (CVodeSetLinearSolver(mem, linear->solver, linear->matrix) != CV_SUCCESS) return false;
    if (callbacks.system.preconditioner(false)) {
      if (CVodeSetPreconditioner(mem, precondition_setup, precondition_solve) != CV_SUCCESS) return false;
    } else {
      CVodeSetJacFn(mem, jacobian);
    }
  } else {
    fixed_point = std::make_unique<FixedPoint>(y, ctx);
    if (CVodeSetNonlinearSolver(mem, fixed_point->solver) != CV_SUCCESS) return false;
  }
  return true;
}

void read_counts(void* mem, bool newton, CvodesCounts& counts) {
  long steps = 0, rhs_evaluations = 0, jacobians = 0;
  CVodeGetNumSteps(mem, &steps);
  CVodeGetNumRhsEvals(mem, &rhs_evaluations);
  if (newton) CVodeGetNumJacEvals(mem, &jacobians);  // fixed-point Adams has no Jacobian
  if (newton) {
    long iterations = 0;
    CVodeGetNumLinIters(mem, &iterations);  // 0 for direct solvers
    counts.linear_iterations = std::size_t(iterations);
  }
  counts.steps = std::size_t(steps);
  counts.rhs_evaluations = std::size_t(rhs_evaluations);
  counts.jacobian_evaluations = std::size_t(jacobians);
}

}  // namespace backsweep::detail
