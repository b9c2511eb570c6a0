#pragma once
// gradient(): the value of the objective and its exact gradient with respect to the
// parameters and the initial state, by the discrete adjoint of the problem's method (any
// ReversibleStepper), with what is kept chosen by a checkpoint schedule. Gradients are
// bitwise the same for every schedule, slot count and storage level.
//
//   store_all  one forward solve keeps every step as it goes (adaptive steps included:
//              the step sequence is recorded on the way): its record of stage values
//              where the stepper has one (no recomputation backward), else its state;
//   revolve    optimal binomial checkpointing for a known number of steps (fixed steps;
//              adaptive ones are counted by a solve first);
//   online     checkpointing while the forward solve finds out how many steps there are;
//   two_level  disk checkpoints for the outer level, memory slots within segments.
// Nothing the last three keep grows with the number of steps: each slot holds its state
// and its place on the step grid.
//
// T is double normally; with T = Dual the whole adjoint is differentiated once more
// (forward-over-adjoint: Hessian-vector products, see hessian.hpp).
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "adjoint/cvodes_gradient.hpp"
#include "adjoint/stability_verdict.hpp"
#include "adjoint/gradient_problem.hpp"
#include "adjoint/gradient_run.hpp"
#include "solvers/any_stepper.hpp"

namespace backsweep {

namespace detail {

// Reads the value, dJ/dp (plus the path through y0(p)) and dJ/dy0 off a finished sweep.
template <class Sweep, class T, Model M, class Obj>
void read_gradient(Sweep& sweep, const GradientProblem<M, Obj>& problem, const std::vector<T>& y0,
                   const std::vector<T>& p, GradientResult<T>& result) {
  const std::size_t n = state_size(problem.model);
  const T* lambda = sweep.lambda();
  std::vector<T> jumped;  // lambda_0 through the events at t0, where some happen
  if (const TimeEvents* events = problem.integrate.events.get()) {
    if (const std::size_t k = events->find(problem.integrate.t0); k != TimeEvents::npos) {
      const std::vector<T> before = initial_state_before_events(problem, y0, p);
      std::vector<T> mu(p.size(), T(0));
      jumped.assign(lambda, lambda + before.size());
      events->reverse(k, before.size(), before.data(), p.data(), jumped.data(), mu.data());
      for (std::size_t j = 0; j < p.size(); ++j) sweep.add_parameter_gradient(j, mu[j]);
      lambda = jumped.data();
    }
  }
  result.dJ_dy0.assign(lambda, lambda + n);
  if constexpr (Obj::has_initial) {
    const std::vector<T> grad = through_initial_state(problem.objective.initial, n, lambda, p);
    for (std::size_t j = 0; j < p.size(); ++j) sweep.add_parameter_gradient(j, grad[j]);
  }
  result.dJ_dp.resize(p.size());
  for (std::size_t j = 0; j < p.size(); ++j) result.dJ_dp[j] = sweep.parameter_gradient(j);
  result.value = sweep.value();
  sweep.check_results(result.value, result.dJ_dp, problem.integrate.t0);
  result.diagnostics.monitor = sweep.growth_report();
  result.diagnostics.stiffness = sweep.stiffness();
  if ((result.diagnostics.nonfinite = sweep.nonfinite())) {
    result.status = IntegrateStatus::non_finite_state;
    name_event(problem, *result.diagnostics.nonfinite);
    result.message = result.diagnostics.nonfinite->describe();
  }
  add_stiffness_verdict(result, problem.method.name(), problem.integrate);
}

}  // namespace detail

// A, the algebra, says where states live and what runs the vector operations (the host
// loop, or a Thrust backend in gpu/); the problem's y0 and p are on the host either way.
template <class T = double, Algebra A = CpuAlgebra, Model M, class Obj>
GradientResult<T> gradient(const GradientProblem<M, Obj>& problem, const std::vector<T>& y0,
                           const std::vector<T>& p, const CheckpointOptions& checkpointing = {}) {
  if constexpr (std::is_same_v<T, double> && host_vectors<A>)
    if (problem.method.is_sundials()) return detail::cvodes_gradient(problem, y0, p);
  GradientResult<T> result;
  result.diagnostics.method = std::string(problem.method.name());
  if constexpr (!host_vectors<A>)
    if (problem.method.is_sundials() || problem.method.implicit()) {  // their solves are host code
      result.status = IntegrateStatus::invalid_options;
      result.message = std::string(problem.method.name()) + " runs on the CPU backend only";
      return result;
    }
  if (problem.method.is_sundials()) {
    result.status = IntegrateStatus::invalid_options;
    result.message = "SUNDIALS methods give double gradients only";
    return result;
  }
  // p where the algebra's kernels can read it: a device model reads a parameter field
  // there (p itself on the CPU).
  const auto p_kept = [&] {
    if constexpr (host_vectors<A>) return std::span<const T>(p);
    else return to_algebra<A>(p);
  }();
  detail::with_system(problem.model, problem.objective, [&](const auto& system) {
    with_stepper<T, A>(system, problem.method, problem.integrate.events.get(), [&](auto& stepper) {
      using S = std::remove_reference_t<decltype(stepper)>;
      using System = std::remove_cvref_t<decltype(system)>;
      detail::GradientRun<S, System, M, Obj> run(stepper, system, problem, p_kept, checkpointing, result);
      try {
        run.run(to_algebra<A>(detail::initial_state<T>(problem, y0, p)), [&](auto& sweep) {
          detail::read_gradient(sweep, problem, y0, p, result);
          result.diagnostics.vjp_evaluations = stepper.vjp_evaluations();
          if constexpr (ReportsLinearSolves<S>) {
            result.diagnostics.linear_solves = stepper.linear_solves();
          } else if constexpr (MayReportLinearSolves<S>) {
            if (const LinearSolveReport* report = stepper.linear_solve_report()) result.diagnostics.linear_solves = *report;
          }
        });
      } catch (const std::invalid_argument& error) {
        // A declared sparsity pattern that does not fit its model: an error of input.
        result.status = IntegrateStatus::invalid_options;
        result.message = error.what();
      }
    });
  });
  return result;
}

}  // namespace backsweep
