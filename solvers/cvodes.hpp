#pragma once
// SUNDIALS CVODES as a backend: BDF (stiff, Newton with a Jacobian from our derivative
// layer: dense LU, KLU for a model that declares its sparsity pattern, or SUNDIALS' SPGMR
// or PCG preconditioned by our Krylov preconditioners, multigrid on grids) or Adams
// (non-stiff, fixed-point), forward solves and CVODES' own
// adjoint (CVodeF/CVodeB with its checkpoints and polynomial interpolation, backward
// quadratures for dJ/dp). This is a continuous adjoint: its accuracy follows the
// tolerances, unlike the discrete adjoint of our own steppers, which is exact for the
// computed solution. SUNDIALS stays behind this header: a model reaches it through the
// OdeSystem interface (ModelSystem adapts any Model), and only cvodes.cpp includes it.
#include <algorithm>
#include <cstddef>
#include <functional>
#include <optional>
#include <type_traits>
#include <string>
#include <vector>

#include "models/derivatives.hpp"
#include "models/grid_layout.hpp"
#include "models/model.hpp"
#include "models/sparse_jacobian.hpp"
#include "solvers/krylov/stage_solver.hpp"
#include "solvers/linear_solver.hpp"
#include "solvers/integrate_options.hpp"
#include "solvers/time_events.hpp"

namespace backsweep {

// y' = f(t, y) with its derivatives, parameters bound.
class OdeSystem {
 public:
  virtual ~OdeSystem() = default;
  virtual std::size_t size() const = 0;
  virtual std::size_t param_size() const = 0;
  virtual void rhs(double t, const double* y, double* dydt) = 0;
  virtual void jacobian(double t, const double* y, double* dfdy) = 0;  // row-major n x n
  // vjp_y = lambdaᵀ df/dy, vjp_p = lambdaᵀ df/dp.
  virtual void vjp(double t, const double* y, const double* lambda, double* vjp_y, double* vjp_p) = 0;
  virtual const double* parameters() const = 0;  // the bound p (events' jumps read it)
  // Directional derivatives for `count` directions (v_y: count x n, v_p: count x n_param,
  // out: count x n): out_k = df/dy v_y,k + df/dp v_p,k.
  virtual void jvp(double t, const double* y, std::size_t count, const double* v_y, const double* v_p,
                   double* out) = 0;
  // A sparse df/dy (then BDF uses KLU): its pattern, n x n in CSR, and the values in
  // that order. Null: dense.
  virtual const SparsityPattern* sparse_pattern() const { return nullptr; }
  virtual void sparse_jacobian(double /*t*/, const double* /*y*/, double* /*values*/) {}
  // With a Krylov method (SPGMR, or PCG for cg): the preconditioners of the forward Newton
  // matrix I - gamma J and of the backward one I + gamma Jᵀ (built on the pattern's J), and
  // which method; null and automatic for a direct solver.
  virtual krylov::KrylovStageSolver* preconditioner(bool /*backward*/) { return nullptr; }
  virtual LinearSolver krylov_method() const { return LinearSolver::automatic; }
};

template <Model M>
class ModelSystem final : public OdeSystem {
 public:
  // The linear solver as choose_linear_solver() picks it for the request (sparse and
  // Krylov on the pattern a model declares). Throws std::invalid_argument for a request
  // the model cannot meet.
  ModelSystem(const M& model, const double* p, LinearSolver linear_solver = LinearSolver::automatic,
              PreconditionerKind preconditioner = PreconditionerKind::automatic)
      : model_(model), p_(p), derivatives_(model), n_(state_size(model)), np_(backsweep::param_size(model)) {
    LinearSystemShape shape{n_, 0, 0, 0};
    const Grid* grid = grid_of(model);
    if (grid) shape = {n_, 0, grid->axes(), grid->points()};
    SparsityPattern pattern;
    if constexpr (HasSparsityPattern<M>) {
      if (linear_solver != LinearSolver::dense) pattern = model.sparsity();
      shape.state_nonzeros = pattern.state_nonzeros();
    }
    choice_ = linear_solver == LinearSolver::dense ? LinearSolverChoice{LinearSolver::dense, {}, "asked for"}
                                                   : choose_linear_solver(linear_solver, preconditioner, shape);
    if (choice_.solver == LinearSolver::gmres || choice_.solver == LinearSolver::cg) {
      std::optional<krylov::GridUnknowns> unknowns;
      if (grid) {
        const std::size_t fields = n_ / grid->points();
        unknowns = krylov::GridUnknowns{grid->shape(), grid->boundary(), fields, n_ - fields * grid->points()};
      }
      for (auto* slot : {&forward_preconditioner_, &backward_preconditioner_})
        slot->emplace(krylov::KrylovOptions{choice_.solver, choice_.preconditioner}, unknowns);
    }
    if constexpr (HasSparsityPattern<M>) {
      if (choice_.solver != LinearSolver::dense) {
        sparse_.emplace(model, std::move(pattern));
        // The state columns of df/d[y, p]: where they are among its nonzeros.
        const SparsityPattern& full = sparse_->pattern();
        states_.rows = states_.columns = n_;
        for (std::size_t i = 0; i < n_; ++i) {
          for (std::size_t nz = full.row_start[i]; nz < full.row_start[i + 1]; ++nz)
            if (full.column_index[nz] < n_) {
              states_.column_index.push_back(full.column_index[nz]);
              state_entries_.push_back(nz);
            }
          states_.row_start.push_back(states_.column_index.size());
        }
      }
    }
  }
  std::size_t size() const override { return n_; }
  std::size_t param_size() const override { return np_; }
  const double* parameters() const override { return p_; }
  void rhs(double t, const double* y, double* dydt) override { model_(t, y, p_, dydt); }
  void jacobian(double t, const double* y, double* dfdy) override { derivatives_.jacobian(t, y, p_, dfdy); }
  void vjp(double t, const double* y, const double* lambda, double* vjp_y, double* vjp_p) override {
    derivatives_.vjp(t, y, p_, lambda, vjp_y, vjp_p);
  }
  // Eight directions per model call on Dual lanes.
  void jvp(double t, const double* y, std::size_t count, const double* v_y, const double* v_p,
           double* out) override {
    using D = Dual<double, kDerivativeLanes>;
    lanes_y_.resize(n_);
    lanes_p_.resize(np_);
    lanes_f_.resize(n_);
    for (std::size_t first = 0; first < count; first += kDerivativeLanes) {
      const std::size_t width = std::min<std::size_t>(kDerivativeLanes, count - first);
      for (std::size_t i = 0; i < n_; ++i) {
        lanes_y_[i] = D(y[i]);
        for (std::size_t k = 0; k < width; ++k) lanes_y_[i].d[k] = v_y[(first + k) * n_ + i];
      }
      for (std::size_t j = 0; j < np_; ++j) {
        lanes_p_[j] = D(p_[j]);
        for (std::size_t k = 0; k < width; ++k) lanes_p_[j].d[k] = v_p[(first + k) * np_ + j];
      }
      model_(D(t), lanes_y_.data(), lanes_p_.data(), lanes_f_.data());
      for (std::size_t k = 0; k < width; ++k)
        for (std::size_t i = 0; i < n_; ++i) out[(first + k) * n_ + i] = lanes_f_[i].d[k];
    }
  }
  const SparsityPattern* sparse_pattern() const override { return states_.rows ? &states_ : nullptr; }
  krylov::KrylovStageSolver* preconditioner(bool backward) override {
    auto& slot = backward ? backward_preconditioner_ : forward_preconditioner_;
    return slot ? &*slot : nullptr;
  }
  LinearSolver krylov_method() const override { return forward_preconditioner_ ? choice_.solver : LinearSolver::automatic; }
  const LinearSolverChoice& linear_solver() const { return choice_; }
  void sparse_jacobian(double t, const double* y, double* values) override {
    if constexpr (HasSparsityPattern<M>) {
      sparse_->evaluate(t, y, p_, JacobianColumns::states);
      const auto all = sparse_->values();
      for (std::size_t k = 0; k < state_entries_.size(); ++k) values[k] = all[state_entries_[k]];
    }
  }

 private:
  const M& model_;
  const double* p_;
  Derivatives<M, double> derivatives_;
  std::size_t n_, np_;
  using SparseSlot = std::conditional_t<HasSparsityPattern<M>, std::optional<SparseJacobian<M, double>>, char>;
  SparseSlot sparse_{};
  std::vector<Dual<double, kDerivativeLanes>> lanes_y_, lanes_p_, lanes_f_;
  SparsityPattern states_;                  // df/dy's pattern (rows 0 when dense)
  std::vector<std::size_t> state_entries_;  // its entries' places among df/d[y, p]'s
  LinearSolverChoice choice_;
  std::optional<krylov::KrylovStageSolver> forward_preconditioner_, backward_preconditioner_;
};

struct CvodesCounts {
  std::size_t steps = 0, rhs_evaluations = 0, jacobian_evaluations = 0;
  std::size_t backward_steps = 0, backward_rhs_evaluations = 0, checkpoints = 0;
  std::size_t linear_iterations = 0, backward_linear_iterations = 0;  // Krylov (SPGMR, PCG)
};

// CVODES takes events at given times by a restart at each (a fresh solve between them);
// events at moving times need a backsweep method, whose adjoint carries their dependence.
inline constexpr const char* kCvodesTakesNoMovingEvents =
    "events at moving times (at an expression, or when) are taken by backsweep's own methods only, not by "
    "CVODES (its root finding has no adjoint here): take e.g. sdirk4, esdirk3 or dopri5";

// The ends of the solves between events: the event times in (t0, t1), then t1.
inline std::vector<double> segment_ends(const IntegrateOptions& options) {
  std::vector<double> ends;
  if (options.events)
    for (double t : options.events->times())
      if (t > options.t0 && t < options.t1) ends.push_back(t);
  ends.push_back(options.t1);
  return ends;
}

// y from options.t0 to options.t1 (in place), `observer(t, y)` at the output times, or
// after every step when there are none; the options' rtol, atol and max_steps apply.
IntegrateResult cvodes_integrate(OdeSystem& system, bool bdf, double* y, const IntegrateOptions& options,
                                 const std::function<void(double, const double*)>& observer,
                                 CvodesCounts* counts = nullptr);

// Forward sensitivities along `directions`: s_k = dy/dtheta_k with s_k(t0) = initial_k
// and s_k' = df/dy s_k + df/dp parameters_k, solved by CVODES with the states (staggered
// corrector, Newton with the system's linear solver also for Adams, error control on s).
// observer(t, y, s) at every output time after t0, s being count x n.
struct SensitivityDirections {
  std::size_t count = 0;
  std::vector<double> initial;     // count x n
  std::vector<double> parameters;  // count x n_param
};
IntegrateResult cvodes_sensitivities(OdeSystem& system, bool bdf, double* y,
                                     const SensitivityDirections& directions, const IntegrateOptions& options,
                                     const std::function<void(double, const double*, const double*)>& observer,
                                     CvodesCounts* counts = nullptr);

// The adjoint of J = g(y(T)) + sum_k l_k(y(t_k)): the forward solve stops at `stops`
// (ascending, in (t0, T], T last) and calls at_stop(k, y); then lambda = seed(y(T)) is
// integrated backward, jump(k, lambda, mu) adding the terms at stop k < last on the way.
// Returns lambda(t0) in `lambda` and mu = ∫ lambdaᵀ f_p dt (+ the jumps') in `mu`.
struct CvodesAdjointRequest {
  std::vector<double> stops;
  std::function<void(std::size_t, const double*)> at_stop;
  // Times in (t0, T] at which the forward solve also shows y(t) to at_output, CVODES
  // interpolating there (its steps, and so the gradient, unchanged).
  std::vector<double> outputs;
  std::function<void(double, const double*)> at_output;
  std::function<void(const double* y_end, double* lambda, double* mu)> seed;
  std::function<void(std::size_t, double* lambda, double* mu)> jump;
  // Times in (t0, T), ascending, at which the backward solve shows lambda(t) and the
  // gradient so far (mu) to at_monitor, going down (the growth monitor's points).
  std::vector<double> monitor_times;
  std::function<void(double, const double* lambda, const double* mu)> at_monitor;
  std::size_t steps_between_checkpoints = 100;
};
IntegrateResult cvodes_adjoint(OdeSystem& system, bool bdf, std::vector<double> y0,
                               const IntegrateOptions& options, const CvodesAdjointRequest& request,
                               std::vector<double>& lambda, std::vector<double>& mu,
                               CvodesCounts* counts = nullptr);

}  // namespace backsweep
