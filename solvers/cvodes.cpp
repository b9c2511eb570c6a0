#include "solvers/cvodes.hpp"

#include <cvodes/cvodes.h>
#include <nvector/nvector_serial.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunlinsol/sunlinsol_klu.h>
#include <sunmatrix/sunmatrix_dense.h>
#include <sunmatrix/sunmatrix_sparse.h>
#include <sunnonlinsol/sunnonlinsol_fixedpoint.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <exception>
#include <memory>
#include <stdexcept>

namespace backsweep {

namespace {

// Owners of the SUNDIALS objects, freed in reverse order of creation.
struct Context {
  SUNContext ctx = nullptr;
  Context() {
    if (SUNContext_Create(nullptr, &ctx) != 0) throw std::runtime_error("SUNDIALS: no context");
  }
  ~Context() { SUNContext_Free(&ctx); }
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
// The Newton matrix and its solver: dense LU, or KLU on the system's sparse pattern (CSR
// forward; the backward problem's -Jᵀ is the same arrays read as CSC).
struct LinearSystem {
  SUNMatrix matrix;
  SUNLinearSolver solver;
  LinearSystem(N_Vector y, const OdeSystem& system, bool transposed, SUNContext ctx) {
    const auto n = sunindextype(system.size());
    if (const SparsityPattern* pattern = system.sparse_pattern()) {
      matrix = SUNSparseMatrix(n, n, sunindextype(pattern->nnz()), transposed ? CSC_MAT : CSR_MAT, ctx);
      solver = SUNLinSol_KLU(y, matrix, ctx);
    } else {
      matrix = SUNDenseMatrix(n, n, ctx);
      solver = SUNLinSol_Dense(y, matrix, ctx);
    }
  }
  ~LinearSystem() {
    SUNLinSolFree(solver);
    SUNMatDestroy(matrix);
  }
};
struct FixedPoint {
  SUNNonlinearSolver solver;
  FixedPoint(N_Vector y, SUNContext ctx) : solver(SUNNonlinSol_FixedPoint(y, 0, ctx)) {}
  ~FixedPoint() { SUNNonlinSolFree(solver); }
};

// What the callbacks reach through user data.
// What the callbacks reach through user data. An exception must not cross SUNDIALS' C
// frames: a callback keeps it here and fails unrecoverably; the caller rethrows it.
struct Callbacks {
  OdeSystem& system;
  std::vector<double> dfdy, vjp_y, vjp_p;
  std::exception_ptr error;
  const SensitivityDirections* directions = nullptr;
  std::vector<double> sensitivities, derivatives;  // count x n each
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

// s_k' = df/dy s_k + df/dp p_k for every direction at once (eight per model call).
int sensitivity_rhs(int count, realtype t, N_Vector y, N_Vector, N_Vector* s, N_Vector* s_dot, void* data,
                    N_Vector, N_Vector) {
  return guarded(data, [&](Callbacks& c) {
    const std::size_t n = c.system.size(), m = std::size_t(count);
    c.sensitivities.resize(m * n);
    c.derivatives.resize(m * n);
    for (std::size_t k = 0; k < m; ++k)
      std::copy_n(N_VGetArrayPointer(s[k]), n, c.sensitivities.data() + k * n);
    c.system.jvp(t, N_VGetArrayPointer(y), m, c.sensitivities.data(), c.directions->parameters.data(),
                 c.derivatives.data());
    for (std::size_t k = 0; k < m; ++k) std::copy_n(c.derivatives.data() + k * n, n, N_VGetArrayPointer(s_dot[k]));
    return finite(c.derivatives.data(), m * n) ? 0 : 1;
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

// Backward: lambda' = -(df/dy)ᵀ lambda, and the quadrature mu' = -(df/dp)ᵀ lambda, so
// that integrating from T down to t0 accumulates mu = ∫ lambdaᵀ f_p dt.
int rhs_backward(realtype t, N_Vector y, N_Vector yB, N_Vector yBdot, void* data) {
  return guarded(data, [&](Callbacks& c) {
    const std::size_t n = c.system.size();
    c.vjp_y.resize(n);
    c.vjp_p.resize(c.system.param_size());
    c.system.vjp(t, N_VGetArrayPointer(y), N_VGetArrayPointer(yB), c.vjp_y.data(), c.vjp_p.data());
    double* out = N_VGetArrayPointer(yBdot);
    for (std::size_t i = 0; i < n; ++i) out[i] = -c.vjp_y[i];
    return finite(out, n) ? 0 : 1;
  });
}
int quadrature_backward(realtype t, N_Vector y, N_Vector yB, N_Vector qBdot, void* data) {
  return guarded(data, [&](Callbacks& c) {
    c.vjp_y.resize(c.system.size());
    c.vjp_p.resize(c.system.param_size());
    c.system.vjp(t, N_VGetArrayPointer(y), N_VGetArrayPointer(yB), c.vjp_y.data(), c.vjp_p.data());
    double* out = N_VGetArrayPointer(qBdot);
    for (std::size_t j = 0; j < c.system.param_size(); ++j) out[j] = -c.vjp_p[j];
    return 0;
  });
}
int jacobian_backward(realtype t, N_Vector y, N_Vector, N_Vector, SUNMatrix JB, void* data, N_Vector,
                      N_Vector, N_Vector) {
  return guarded(data, [&](Callbacks& c) {
    fill(c, t, y, JB, true, -1.0);
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
            bool newton = false) {
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
    CVodeSetJacFn(mem, jacobian);
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
  counts.steps = std::size_t(steps);
  counts.rhs_evaluations = std::size_t(rhs_evaluations);
  counts.jacobian_evaluations = std::size_t(jacobians);
}

void add_backward_counts(void* backward, CvodesCounts& counts) {
  long steps = 0, rhs_evaluations = 0;
  CVodeGetNumSteps(backward, &steps);
  CVodeGetNumRhsEvals(backward, &rhs_evaluations);
  counts.backward_steps += std::size_t(steps);
  counts.backward_rhs_evaluations += std::size_t(rhs_evaluations);
}

}  // namespace

IntegrateResult cvodes_integrate(OdeSystem& system, bool bdf, double* y, const IntegrateOptions& options,
                                 const std::function<void(double, const double*)>& observer,
                                 CvodesCounts* counts) {
  if (auto why = options.invalid_reason(true)) return {IntegrateStatus::invalid_options, *why};
  const std::size_t n = system.size();
  Context context;
  Vector state(n, context.ctx);
  std::copy(y, y + n, state.data());
  Solver solver(bdf ? CV_BDF : CV_ADAMS, context.ctx);
  Callbacks callbacks{system, {}, {}, {}, nullptr, nullptr, {}, {}};
  std::unique_ptr<LinearSystem> linear;
  std::unique_ptr<FixedPoint> fixed_point;
  if (!set_up(solver.mem, bdf, state.v, options, callbacks, linear, fixed_point, context.ctx))
    return {IntegrateStatus::invalid_options, "CVODES rejected the options"};
  observer(options.t0, state.data());
  IntegrateResult result;
  const bool every_step = options.output_times.empty();
  std::size_t next_output = 0;
  double t = options.t0;
  while (t < options.t1) {
    while (next_output < options.output_times.size() && options.output_times[next_output] <= options.t0)
      ++next_output;
    const double target = every_step ? options.t1
                          : next_output < options.output_times.size() ? options.output_times[next_output]
                                                                     : options.t1;
    const int flag = CVode(solver.mem, target, state.v, &t, every_step ? CV_ONE_STEP : CV_NORMAL);
    callbacks.rethrow();
    if (flag < 0) {
      result = failure(flag, t, "forward solve");
      break;
    }
    if (every_step || next_output < options.output_times.size()) observer(t, state.data());
    if (!every_step) ++next_output;
  }
  std::copy(state.data(), state.data() + n, y);
  CvodesCounts read;
  read_counts(solver.mem, bdf, read);
  result.steps = read.steps;
  result.rhs_evaluations = read.rhs_evaluations;
  if (result.ok()) result.t = options.t1;
  if (counts) *counts = read;
  return result;
}

IntegrateResult cvodes_sensitivities(OdeSystem& system, bool bdf, double* y,
                                     const SensitivityDirections& directions, const IntegrateOptions& options,
                                     const std::function<void(double, const double*, const double*)>& observer,
                                     CvodesCounts* counts) {
  if (auto why = options.invalid_reason(true)) return {IntegrateStatus::invalid_options, *why};
  const std::size_t n = system.size(), m = directions.count;
  if (m == 0 || directions.initial.size() != m * n || directions.parameters.size() != m * system.param_size())
    return {IntegrateStatus::invalid_options, "sensitivity directions do not match the system"};
  Context context;
  Vector state(n, context.ctx);
  std::copy(y, y + n, state.data());
  Solver solver(bdf ? CV_BDF : CV_ADAMS, context.ctx);
  Callbacks callbacks{system, {}, {}, {}, nullptr, &directions, {}, {}};
  std::unique_ptr<LinearSystem> linear;
  std::unique_ptr<FixedPoint> fixed_point;
  const std::unique_ptr<N_Vector, std::function<void(N_Vector*)>> s(
      N_VCloneVectorArray(int(m), state.v), [m](N_Vector* v) { N_VDestroyVectorArray(v, int(m)); });
  for (std::size_t k = 0; k < m; ++k) std::copy_n(directions.initial.data() + k * n, n, N_VGetArrayPointer(s.get()[k]));
  if (!set_up(solver.mem, bdf, state.v, options, callbacks, linear, fixed_point, context.ctx, true) ||
      CVodeSensInit(solver.mem, int(m), CV_STAGGERED, sensitivity_rhs, s.get()) != CV_SUCCESS ||
      CVodeSensEEtolerances(solver.mem) != CV_SUCCESS || CVodeSetSensErrCon(solver.mem, SUNTRUE) != CV_SUCCESS)
    return {IntegrateStatus::invalid_options, "CVODES rejected the options"};
  IntegrateResult result;
  std::vector<double> sensitivities(m * n);
  double t = options.t0;
  for (double target : options.output_times) {
    if (target <= options.t0) continue;
    const int flag = CVode(solver.mem, target, state.v, &t, CV_NORMAL);
    callbacks.rethrow();
    if (flag < 0) {
      result = failure(flag, t, "forward sensitivity solve");
      break;
    }
    CVodeGetSens(solver.mem, &t, s.get());
    for (std::size_t k = 0; k < m; ++k)
      std::copy_n(N_VGetArrayPointer(s.get()[k]), n, sensitivities.data() + k * n);
    observer(t, state.data(), sensitivities.data());
  }
  std::copy(state.data(), state.data() + n, y);
  CvodesCounts read;
  read_counts(solver.mem, true, read);
  long sensitivity_rhs_evaluations = 0;
  CVodeGetSensNumRhsEvals(solver.mem, &sensitivity_rhs_evaluations);
  read.rhs_evaluations += std::size_t(sensitivity_rhs_evaluations);
  result.steps = read.steps;
  result.rhs_evaluations = read.rhs_evaluations;
  if (result.ok()) result.t = t;
  if (counts) *counts = read;
  return result;
}

IntegrateResult cvodes_adjoint(OdeSystem& system, bool bdf, std::vector<double> y0,
                               const IntegrateOptions& options, const CvodesAdjointRequest& request,
                               std::vector<double>& lambda, std::vector<double>& mu, CvodesCounts* counts) {
  if (auto why = options.invalid_reason(true)) return {IntegrateStatus::invalid_options, *why};
  const auto& stops = request.stops;
  if (stops.empty() || stops.back() != options.t1 || !(stops.front() > options.t0) ||
      !std::is_sorted(stops.begin(), stops.end()))
    return {IntegrateStatus::invalid_options, "the adjoint's stops must ascend in (t0, t1], t1 last"};
  const std::size_t n = system.size(), np = system.param_size();
  Context context;
  Vector state(n, context.ctx);
  std::copy(y0.begin(), y0.end(), state.data());
  Solver solver(bdf ? CV_BDF : CV_ADAMS, context.ctx);
  Callbacks callbacks{system, {}, {}, {}, nullptr, nullptr, {}, {}};
  std::unique_ptr<LinearSystem> linear, linear_backward;
  std::unique_ptr<FixedPoint> fixed_point;
  if (!set_up(solver.mem, bdf, state.v, options, callbacks, linear, fixed_point, context.ctx) ||
      CVodeAdjInit(solver.mem, long(request.steps_between_checkpoints), CV_POLYNOMIAL) != CV_SUCCESS)
    return {IntegrateStatus::invalid_options, "CVODES rejected the options"};

  // Forward, stopping at every stop and output time.
  double t = options.t0;
  int checkpoints = 0;
  std::size_t output = 0;
  auto reach = [&](double time) {
    const int flag = CVodeF(solver.mem, time, state.v, &t, CV_NORMAL, &checkpoints);
    callbacks.rethrow();
    return flag;
  };
  for (std::size_t k = 0; k < request.stops.size(); ++k) {
    for (; output < request.outputs.size() && request.outputs[output] <= request.stops[k]; ++output) {
      if (request.outputs[output] == request.stops[k]) continue;  // shown at the stop
      if (const int flag = reach(request.outputs[output]); flag < 0) return failure(flag, t, "forward solve");
      request.at_output(request.outputs[output], state.data());
    }
    if (const int flag = reach(request.stops[k]); flag < 0) return failure(flag, t, "forward solve");
    request.at_stop(k, state.data());
    if (request.at_output && std::binary_search(request.outputs.begin(), request.outputs.end(), request.stops[k]))
      request.at_output(request.stops[k], state.data());
  }
  CvodesCounts read;
  read_counts(solver.mem, bdf, read);
  read.checkpoints = std::size_t(checkpoints);

  // Backward, with the quadrature of lambdaᵀ f_p, restarted at every stop with its jump.
  Vector adjoint(n, context.ctx), quadrature(np, context.ctx);
  lambda.assign(n, 0.0);
  mu.assign(np, 0.0);
  request.seed(state.data(), lambda.data(), mu.data());
  std::copy(lambda.begin(), lambda.end(), adjoint.data());
  for (std::size_t j = 0; j < np; ++j) quadrature.data()[j] = 0.0;
  int which = 0;
  const double t_end = request.stops.back();
  if (CVodeCreateB(solver.mem, CV_BDF, &which) != CV_SUCCESS ||
      CVodeInitB(solver.mem, which, rhs_backward, t_end, adjoint.v) != CV_SUCCESS ||
      CVodeSStolerancesB(solver.mem, which, options.rtol, options.atol) != CV_SUCCESS ||
      CVodeSetUserDataB(solver.mem, which, &callbacks) != CV_SUCCESS ||
      CVodeSetMaxNumStepsB(solver.mem, which, long(options.max_steps)) != CV_SUCCESS)
    return {IntegrateStatus::invalid_options, "CVODES rejected the backward problem"};
  linear_backward = std::make_unique<LinearSystem>(adjoint.v, system, true, context.ctx);
  if (CVodeSetLinearSolverB(solver.mem, which, linear_backward->solver, linear_backward->matrix) != CV_SUCCESS ||
      CVodeSetJacFnB(solver.mem, which, jacobian_backward) != CV_SUCCESS ||
      CVodeQuadInitB(solver.mem, which, quadrature_backward, quadrature.v) != CV_SUCCESS ||
      CVodeQuadSStolerancesB(solver.mem, which, options.rtol, options.atol) != CV_SUCCESS ||
      CVodeSetQuadErrConB(solver.mem, which, SUNTRUE) != CV_SUCCESS)
    return {IntegrateStatus::invalid_options, "CVODES rejected the backward problem"};
  std::vector<double> carried(np, 0.0);  // the quadrature of the finished segments
  for (std::size_t k = request.stops.size() - 1; k-- > 0;) {
    const double t_k = request.stops[k];
    const int flag = CVodeB(solver.mem, t_k, CV_NORMAL);
    callbacks.rethrow();
    if (flag < 0) return failure(flag, t_k, "backward solve");
    CVodeGetB(solver.mem, which, &t, adjoint.v);
    CVodeGetQuadB(solver.mem, which, &t, quadrature.v);
    std::copy(adjoint.data(), adjoint.data() + n, lambda.begin());
    for (std::size_t j = 0; j < np; ++j) carried[j] += quadrature.data()[j];
    request.jump(k, lambda.data(), mu.data());
    add_backward_counts(CVodeGetAdjCVodeBmem(solver.mem, which), read);  // ReInitB zeroes them
    std::copy(lambda.begin(), lambda.end(), adjoint.data());
    for (std::size_t j = 0; j < np; ++j) quadrature.data()[j] = 0.0;
    if (CVodeReInitB(solver.mem, which, t_k, adjoint.v) != CV_SUCCESS ||
        CVodeQuadReInitB(solver.mem, which, quadrature.v) != CV_SUCCESS)
      return failure(CV_ILL_INPUT, t_k, "backward restart");
  }
  if (options.t0 < (request.stops.size() > 1 ? request.stops[0] : t_end)) {
    const int flag = CVodeB(solver.mem, options.t0, CV_NORMAL);
    callbacks.rethrow();
    if (flag < 0) return failure(flag, options.t0, "backward solve");
    CVodeGetB(solver.mem, which, &t, adjoint.v);
    CVodeGetQuadB(solver.mem, which, &t, quadrature.v);
    std::copy(adjoint.data(), adjoint.data() + n, lambda.begin());
    for (std::size_t j = 0; j < np; ++j) carried[j] += quadrature.data()[j];
  }
  for (std::size_t j = 0; j < np; ++j) mu[j] += carried[j];
  add_backward_counts(CVodeGetAdjCVodeBmem(solver.mem, which), read);
  if (counts) *counts = read;
  IntegrateResult result;
  result.t = options.t0;
  result.steps = read.steps;
  result.rhs_evaluations = read.rhs_evaluations;
  return result;
}

}  // namespace backsweep
