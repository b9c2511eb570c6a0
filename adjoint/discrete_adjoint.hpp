#pragma once
// gradient(): the value of the objective and its exact gradient with respect to the
// parameters and the initial state, by the discrete adjoint of the problem's method (any
// ReversibleStepper), with the states kept according to a checkpoint schedule. Gradients
// are bitwise the same for every schedule and slot count.
//
//   store_all  one forward solve keeps every step as it goes (adaptive steps included:
//              the step sequence is recorded on the way): its record of stage values
//              where the stepper has one (no recomputation backward), else its state;
//   revolve    the step sequence first (the fixed grid, or one adaptive solve), then the
//              optimal binomial schedule with a bounded number of slots.
//
// T is double normally; with T = Dual the whole adjoint is differentiated once more
// (forward-over-adjoint: Hessian-vector products, see hessian.hpp).
#include <chrono>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "adjoint/checkpoint_schedule.hpp"
#include "adjoint/checkpoint_store.hpp"
#include "adjoint/detail/adjoint_sweep.hpp"
#include "adjoint/gradient_problem.hpp"
#include "adjoint/schedule_executor.hpp"

namespace backsweep {

namespace detail {

template <ReversibleStepper S, class System, Model M, class Obj>
class GradientRun {
 public:
  using T = typename S::scalar_type;
  using A = typename S::algebra_type;

  GradientRun(S& stepper, const System& system, const GradientProblem<M, Obj>& problem,
              const std::vector<T>& p, const CheckpointOptions& checkpointing,
              GradientResult<T>& result)
      : stepper_(stepper), system_(system), problem_(problem), p_(p), checkpointing_(checkpointing),
        result_(result), n_(stepper.state_size()), store_(n_, checkpointing.storage) {}

  // Runs the sweeps from the system's initial state y, and calls finish(sweep) to read
  // the gradient off the sweep; on failure the result says why.
  template <class Finish>
  void run(std::vector<T> y, Finish&& finish) {
    GradientDiagnostics& d = result_.diagnostics;
    if constexpr (requires { stepper_.vjp_method(); })
      d.derivatives = to_string(stepper_.vjp_method());
    const bool float32 = checkpointing_.storage == CheckpointOptions::Storage::float32;
    d.storage = float32 ? "float32" : "float64";
    if (float32 && !std::is_same_v<T, double>)
      return fail(IntegrateStatus::invalid_options,
                  "float32 checkpoints are for double gradients only");
    const bool store_all = checkpointing_.schedule == CheckpointOptions::Schedule::store_all ||
                           (checkpointing_.schedule == CheckpointOptions::Schedule::automatic &&
                            checkpointing_.slots == 0 && checkpointing_.memory == 0);
    store_all ? run_store_all(y, finish) : run_revolve(y, finish);
  }

 private:
  void fail(IntegrateStatus status, const std::string& message) {
    result_.status = status;
    result_.message = message;
  }
  // A failed forward solve; a NaN is reported as the sweeps report it: the index and time
  // of the first non-finite state.
  void fail(const IntegrateResult& solved) {
    fail(solved.status, solved.message);
    if (solved.status != IntegrateStatus::non_finite_state) return;
    result_.diagnostics.nonfinite =
        NonFinite{"forward", solved.failed_step + 1, solved.failed_component, solved.failed_time};
    result_.message = result_.diagnostics.nonfinite->describe();
  }
  bool locate_observations() {
    if (auto why = observation_steps(problem_.objective, sequence_, observations_)) {
      fail(IntegrateStatus::invalid_options, *why);
      return false;
    }
    return true;
  }
  double seconds_since(std::chrono::steady_clock::time_point start) const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

  // One forward solve keeping every step (slot n holds step n's record, or its state
  // y_n), then the backward sweep.
  template <class Finish>
  void run_store_all(std::vector<T>& y, Finish& finish) {
    GradientDiagnostics& d = result_.diagnostics;
    const auto started = std::chrono::steady_clock::now();
    const IntegrateOptions options = landing_options(problem_.integrate, problem_.objective);
    // Slot n holds step n's record where the stepper keeps records (written in place when
    // the store keeps float64, narrowed in from `record` for float32), else y_n.
    std::vector<T> record;
    if constexpr (RecordingStepper<S>) {
      store_ = CheckpointStore<T, A>(stepper_.record_size(), checkpointing_.storage);
      if (!store_.in_place()) record.resize(stepper_.record_size());
    }
    sequence_ = StepSequence(options.t0);
    if (options.step > 0.0) {  // the number of steps is known: no regrowth on the way
      const std::size_t steps = FixedGrid(options).size();
      sequence_.reserve(steps);
      store_.reserve(steps + 1);
    }
    // Keeps what step sequence_.size() starts from (y_n, or where its record goes).
    auto keep = [&](const T* y_n) {
      if constexpr (RecordingStepper<S>) {
        if (store_.in_place()) {
          store_.resize(sequence_.size() + 1);
          stepper_.record_to(store_.slot(sequence_.size()));
        } else {
          if (sequence_.size() > 0) store_.push_back(record.data());
          stepper_.record_to(record.data());
        }
      } else {
        store_.push_back(y_n);
      }
    };
    keep(y.data());
    const IntegrateResult solved = integrate(
        stepper_, y.data(), p_.data(), options, [](double, const T*) {},
        [&](const StepInterval& step, const T* y_next) {
          sequence_.push_back(step);
          keep(y_next);
        });
    if constexpr (RecordingStepper<S>) {
      stepper_.record_to(nullptr);
      store_.resize(sequence_.size());  // a slot was opened for a step not taken
    }
    if (!solved.ok()) {
      d.rhs_evaluations = stepper_.rhs_evaluations();
      return fail(solved);
    }
    if (!locate_observations()) return;
    const std::size_t steps = sequence_.size();
    d.schedule = "store_all";
    d.steps = d.adjoint_steps = steps;
    d.recomputed_steps = steps - 1;
    d.slots = d.peak_slots = store_.slots();
    d.checkpoint_bytes = d.peak_slots * store_.bytes_per_slot();
    d.forward_seconds = seconds_since(started);

    const auto backward = std::chrono::steady_clock::now();
    AdjointSweep<S, M, Obj> sweep(stepper_, problem_, sequence_, observations_, p_, store_);
    std::vector<T> scratch(store_.width());  // room for a widened slot
    sweep.seed(y.data());  // y_N
    for (std::size_t n = steps; n-- > 0;) {
      if constexpr (RecordingStepper<S>) sweep.reverse_recorded(n, store_.get(n, scratch.data()));
      else sweep.reverse_step(n, store_.get(n, scratch.data()));
    }
    finish(sweep);
    d.rhs_evaluations = stepper_.rhs_evaluations();
    d.backward_seconds = seconds_since(backward);
  }

  // The step sequence first, then the optimal schedule for `slots` states.
  template <class Finish>
  void run_revolve(std::vector<T>& y, Finish& finish) {
    GradientDiagnostics& d = result_.diagnostics;
    const auto started = std::chrono::steady_clock::now();
    const IntegrateResult found =
        detail::step_sequence(system_, problem_, values_of(y), values_of(p_), sequence_);
    if (problem_.method.adaptive() && !problem_.integrate.step) d.sequence_steps = found.steps;
    d.rhs_evaluations = found.rhs_evaluations;
    if (!found.ok()) return fail(found);
    if (!locate_observations()) return;
    const std::size_t steps = sequence_.size();
    std::size_t slots = checkpointing_.slots;
    if (slots == 0 && checkpointing_.memory > 0) {
      slots = slots_for_budget(checkpointing_.memory, store_.bytes_per_slot());
      if (slots == 0)
        return fail(IntegrateStatus::invalid_options,
                    "the checkpoint memory budget holds no state: it needs at least " +
                        std::to_string(store_.bytes_per_slot()) + " bytes");
    }
    if (slots == 0) slots = 100;
    slots = std::min(slots, std::max<std::size_t>(steps, 1));  // more change nothing
    store_.resize(slots);
    AdjointSweep<S, M, Obj> sweep(stepper_, problem_, sequence_, observations_, p_, store_);
    sweep.set_current(y.data());
    const auto schedule = revolve_schedule(steps, slots);
    const ScheduleCounts counts = execute_schedule(*schedule, sweep);
    finish(sweep);
    d.schedule = "revolve";
    d.steps = steps;
    d.slots = slots;
    d.peak_slots = counts.peak_slots;
    d.recomputed_steps = counts.recomputed_steps;
    d.adjoint_steps = counts.adjoint_steps;
    d.rhs_evaluations += stepper_.rhs_evaluations();
    d.checkpoint_bytes = counts.peak_slots * store_.bytes_per_slot();
    d.forward_seconds = std::chrono::duration<double>(sweep.first_adjoint_step() - started).count();
    d.backward_seconds = seconds_since(started) - d.forward_seconds;
  }

  S& stepper_;
  const System& system_;
  const GradientProblem<M, Obj>& problem_;
  const std::vector<T>& p_;
  const CheckpointOptions& checkpointing_;
  GradientResult<T>& result_;
  std::size_t n_;
  CheckpointStore<T, A> store_;
  StepSequence sequence_;
  ObservationSteps observations_;
};

}  // namespace detail

namespace detail {

// Reads the value, dJ/dp (plus the path through y0(p)) and dJ/dy0 off a finished sweep.
template <class Sweep, class T, Model M, class Obj>
void read_gradient(Sweep& sweep, const GradientProblem<M, Obj>& problem, const std::vector<T>& p,
                   GradientResult<T>& result) {
  const std::size_t n = state_size(problem.model);
  const T* lambda = sweep.lambda();
  result.dJ_dy0.assign(lambda, lambda + n);
  if constexpr (Obj::has_initial) {
    // Through y0(p): dJ/dp += (dy0/dp)ᵀ lambda_0.
    ScalarGradient<T> through_initial(0, p.size());
    std::vector<T> grad(p.size()), none;
    through_initial(
        [&](const auto*, const auto* q) {
          using D = std::remove_cvref_t<decltype(*q)>;
          std::vector<D> y(n);
          problem.objective.initial(q, y.data());
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
  result.diagnostics.monitor = sweep.growth_report();
  if ((result.diagnostics.nonfinite = sweep.nonfinite())) {
    result.status = IntegrateStatus::non_finite_state;
    result.message = result.diagnostics.nonfinite->describe();
  }
}

}  // namespace detail

template <class T = double, Model M, class Obj>
GradientResult<T> gradient(const GradientProblem<M, Obj>& problem, const std::vector<T>& y0,
                           const std::vector<T>& p, const CheckpointOptions& checkpointing = {}) {
  GradientResult<T> result;
  result.diagnostics.method = std::string(problem.method.name());
  detail::with_system(problem.model, problem.objective, [&](const auto& system) {
    with_stepper<T>(system, problem.method, [&](auto& stepper) {
      using S = std::remove_reference_t<decltype(stepper)>;
      using System = std::remove_cvref_t<decltype(system)>;
      detail::GradientRun<S, System, M, Obj> run(stepper, system, problem, p, checkpointing, result);
      try {
        run.run(detail::initial_state<T>(problem, y0, p), [&](auto& sweep) {
          detail::read_gradient(sweep, problem, p, result);
          result.diagnostics.vjp_evaluations = stepper.vjp_evaluations();
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
