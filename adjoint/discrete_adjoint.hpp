#pragma once
// gradient(): the value of the objective and its exact gradient with respect to the
// parameters and the initial state, by the discrete adjoint of the explicit RK solve,
// with the states kept according to a checkpoint schedule. Gradients are bitwise the
// same for every schedule and slot count.
//
// T is double normally; with T = Dual the whole adjoint is differentiated once more
// (forward-over-adjoint: Hessian-vector products, see hessian.hpp).
#include <chrono>
#include <type_traits>
#include <vector>

#include "adjoint/checkpoint_schedule.hpp"
#include "adjoint/detail/adjoint_sweep.hpp"
#include "adjoint/gradient_problem.hpp"
#include "adjoint/schedule_executor.hpp"

namespace backsweep {

template <class T = double, Model M, class Obj>
GradientResult<T> gradient(const GradientProblem<M, Obj>& problem, const std::vector<T>& y0,
                           const std::vector<T>& p, const CheckpointOptions& checkpointing = {}) {
  GradientResult<T> result;
  result.diagnostics.method = std::string(problem.tableau.name);
  const auto started = std::chrono::steady_clock::now();
  detail::with_system(problem.model, problem.objective, [&](const auto& system) {
    using System = std::remove_cvref_t<decltype(system)>;
    const std::vector<T> y_start = detail::initial_state<T>(problem, y0, p);
    StepSequence sequence;
    std::vector<std::size_t> observation_steps;
    const IntegrateResult found =
        detail::prepare_sequence(system, problem, detail::values_of(y_start),
                                 detail::values_of(p), sequence, observation_steps);
    GradientDiagnostics& d = result.diagnostics;
    if (!problem.integrate.step) d.sequence_steps = found.steps;
    d.rhs_evaluations = found.rhs_evaluations;
    if (!found.ok()) {
      result.status = found.status;
      result.message = found.message;
      return;
    }
    const std::size_t steps = sequence.size();
    const bool store_all = checkpointing.schedule == CheckpointOptions::Schedule::store_all;
    // More slots than steps change nothing but the memory taken.
    const std::size_t slots = store_all ? std::max<std::size_t>(steps, 1)
                                        : std::min(checkpointing.slots, std::max<std::size_t>(steps, 1));
    if (slots == 0) {
      result.status = IntegrateStatus::invalid_options;
      result.message = "revolve needs at least one checkpoint slot";
      return;
    }
    const bool float32 = checkpointing.storage == CheckpointOptions::Storage::float32;
    if (float32 && !std::is_same_v<T, double>) {
      result.status = IntegrateStatus::invalid_options;
      result.message = "float32 checkpoints are for double gradients only";
      return;
    }
    const CheckpointSchedule schedule =
        store_all ? store_all_schedule(steps) : revolve_schedule(steps, slots);
    detail::AdjointSweep<System, T, M, Obj> sweep(system, problem, sequence, observation_steps,
                                                  y_start, p, slots, checkpointing.storage);
    const ScheduleCounts counts = execute_schedule(schedule, sweep);

    const std::size_t n = state_size(problem.model);
    const std::vector<T>& lambda = sweep.lambda();
    result.dJ_dy0.assign(lambda.begin(), lambda.begin() + std::ptrdiff_t(n));
    if constexpr (Obj::has_initial) {
      // Through y0(p): dJ/dp += (dy0/dp)ᵀ lambda_0.
      detail::ScalarGradient<T> through_initial(0, p.size());
      std::vector<T> grad(p.size()), none;
      const auto& initial = problem.objective.initial;
      through_initial(
          [&](const auto*, const auto* q) {
            using D = std::remove_cvref_t<decltype(*q)>;
            std::vector<D> y(n);
            initial(q, y.data());
            D sum(0);
            for (std::size_t i = 0; i < n; ++i) sum += lambda[i] * y[i];
            return sum;
          },
          none.data(), p.data(), none.data(), grad.data());
      for (std::size_t j = 0; j < p.size(); ++j) sweep.add_parameter_gradient(j, grad[j]);
    }
    result.dJ_dp.resize(p.size());
    for (std::size_t j = 0; j < p.size(); ++j) result.dJ_dp[j] = sweep.parameter_gradient(j);
    result.value = sweep.value();
    sweep.check_results(result.value, result.dJ_dp);

    d.schedule = store_all ? "store_all" : "revolve";
    d.steps = steps;
    d.slots = slots;
    d.peak_slots = counts.peak_slots;
    d.recomputed_steps = counts.recomputed_steps;
    d.adjoint_steps = counts.adjoint_steps;
    d.rhs_evaluations += sweep.rhs_evaluations();
    d.vjp_evaluations = sweep.vjp_evaluations();
    d.nonfinite = sweep.nonfinite();
    d.storage = float32 ? "float32" : "float64";
    d.checkpoint_bytes = counts.peak_slots * sweep.bytes_per_slot();
    d.monitor = sweep.growth_report();
    d.backward_seconds = sweep.backward_seconds();
    d.forward_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count() -
        d.backward_seconds;
    if (d.nonfinite) {
      result.status = IntegrateStatus::non_finite_state;
      result.message = d.nonfinite->describe();
    }
  });
  return result;
}

}  // namespace backsweep
