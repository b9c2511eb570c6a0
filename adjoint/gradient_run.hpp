#pragma once
// GradientRun: one gradient's sweeps for a stepper (the engine behind gradient(),
// discrete_adjoint.hpp): it checks the options, picks the checkpoint schedule when asked
// to (and says why), and runs store-all, or a schedule against the fixed or adaptive grid,
// filling the diagnostics.
#include <chrono>
#include <cstdio>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "adjoint/checkpoint_schedule.hpp"
#include "adjoint/checkpoint_store.hpp"
#include "adjoint/adjoint_sweep.hpp"
#include "adjoint/schedule_backend.hpp"
#include "adjoint/gradient_problem.hpp"
#include "adjoint/schedule_executor.hpp"
#include "solvers/context.hpp"

namespace backsweep {

namespace detail {

// The bytes a gradient keeps besides its slots: the monitor's history and histograms and
// the observation list.
template <class Obj>
std::uint64_t fixed_bytes(const MonitorOptions& monitor, const Obj& objective, std::size_t steps) {
  const std::uint64_t history = std::min<std::uint64_t>(monitor.history_limit, steps + 1);
  const std::uint64_t intervals = monitor.interval_times.size() + 1;
  return 3 * sizeof(double) * history + intervals * MagnitudeHistograms::kBins * sizeof(std::size_t) +
         kStiffnessSamples * sizeof(double) +
         objective.observation_times.size() * (sizeof(double) + sizeof(std::size_t));
}

template <ReversibleStepper S, class System, Model M, class Obj>
class GradientRun {
 public:
  using T = typename S::scalar_type;
  using A = typename S::algebra_type;
  using Vector = typename A::template vector<T>;  // where the algebra keeps states
  using Schedule = CheckpointOptions::Schedule;

  GradientRun(S& stepper, const System& system, const GradientProblem<M, Obj>& problem,
              std::span<const T> p, const CheckpointOptions& checkpointing,
              GradientResult<T>& result)
      : stepper_(stepper), system_(system), problem_(problem), p_(p), checkpointing_(checkpointing),
        result_(result), n_(stepper.state_size()),
        options_(landing_options(problem.integrate, problem.objective)) {}

  // Runs the sweeps from the system's initial state y, and calls finish(sweep) to read
  // the gradient off the sweep; on failure the result says why.
  template <class Finish>
  void run(Vector y, Finish&& finish) {
    GradientDiagnostics& d = result_.diagnostics;
    if constexpr (requires { stepper_.vjp_method(); })
      d.derivatives = to_string(stepper_.vjp_method());
    const bool float32 = checkpointing_.storage == CheckpointOptions::Storage::float32;
    d.storage = float32 ? "float32" : "float64";
    if (float32 && !std::is_same_v<T, double>)
      return fail(IntegrateStatus::invalid_options, "float32 checkpoints are for double gradients only");
    if (auto why = options_.invalid_reason(problem_.method.adaptive()))
      return fail(IntegrateStatus::invalid_options, *why);
    const bool fixed = options_.step > 0.0;
    const FixedGrid grid(options_);
    if (fixed && grid.too_many_steps())
      return fail(IntegrateStatus::max_steps_reached, too_many_fixed_steps(options_));
    std::size_t steps = fixed ? grid.size() : 0;
    Schedule schedule = checkpointing_.schedule;
    const bool bounded = checkpointing_.slots || checkpointing_.memory;
    if (schedule != Schedule::automatic) d.schedule_reason = "the checkpointing options name it";
    if (schedule == Schedule::automatic) {
      if (!bounded) {
        schedule = Schedule::store_all;
        d.schedule_reason = "no memory budget or slot count: every step is kept";
      } else if (fixed && checkpointing_.memory &&
                 store_all_bytes(steps) <= checkpointing_.memory) {
        schedule = Schedule::store_all;
        d.schedule_reason = "every step fits the memory budget";
      } else if (!fixed) {
        schedule = Schedule::online;
        d.schedule_reason = "adaptive steps: the number of steps is found out on the way";
      } else {
        schedule = Schedule::revolve;
        d.schedule_reason = "the steps do not all fit: optimal binomial checkpointing";
      }
    }
    if (schedule == Schedule::store_all && fixed && checkpointing_.machine_memory &&
        store_all_bytes(steps) > checkpointing_.machine_memory) {
      // Named: refused at `schedule`; chosen by auto: at `memory`, which would bound it.
      return refuse(checkpointing_.schedule == Schedule::store_all ? "schedule" : "memory",
                    "store_all keeps all " + std::to_string(steps) + " steps: " +
                        std::to_string(store_all_bytes(steps)) + " bytes (" + format_byte_size(store_all_bytes(steps)) +
                        "), more than this machine's " + format_byte_size(checkpointing_.machine_memory) +
                        "; bound it with [checkpointing] memory = \"...\" (revolve recomputes instead), or take "
                        "fewer steps");
    }
    if (schedule == Schedule::store_all) return run_store_all(y, finish);
    if (!fixed && (schedule == Schedule::revolve || schedule == Schedule::two_level) &&
        !count_steps(y, steps))
      return;
    // Disk slots first: their places on the grid are kept in memory, out of its budget.
    std::size_t disk_slots = checkpointing_.disk_slots;
    if (!disk_slots && checkpointing_.disk) disk_slots = std::size_t(checkpointing_.disk / (n_ * sizeof(double)));
    if (schedule == Schedule::two_level && !disk_slots)
      return short_budget("disk", n_ * sizeof(double));
    disk_slots = std::min(disk_slots, std::max<std::size_t>(steps, 2) - 1);  // more go unused
    const std::optional<std::size_t> memory_slots =
        memory_slots_for(steps, schedule == Schedule::two_level ? disk_slots : 0);
    if (!memory_slots)
      return short_budget("memory", memory_needed(steps, schedule == Schedule::two_level ? disk_slots : 0));
    if (checkpointing_.schedule == Schedule::automatic && schedule == Schedule::revolve && disk_slots)
      if (const auto with_disk = memory_slots_for(steps, disk_slots);
          with_disk && two_level_recomputations(steps, *with_disk, disk_slots) <
                           revolve_min_recomputations(steps, *memory_slots)) {
        schedule = Schedule::two_level;
        d.schedule_reason = "disk checkpoints cost fewer recomputations than memory alone";
        return run_planned(two_level_schedule(steps, std::min(*with_disk, steps), disk_slots), y, finish);
      }
    std::unique_ptr<CheckpointSchedule> plan;
    if (schedule == Schedule::online) plan = online_schedule(*memory_slots);
    else if (schedule == Schedule::two_level)
      plan = two_level_schedule(steps, std::min(*memory_slots, std::max<std::size_t>(steps, 1)), disk_slots);
    else plan = revolve_schedule(steps, std::min(*memory_slots, std::max<std::size_t>(steps, 1)));
    run_planned(std::move(plan), y, finish);
  }

 private:
  // Runs a schedule on the fixed or adaptive grid.
  template <class Finish>
  void run_planned(std::unique_ptr<CheckpointSchedule> plan, Vector& y, Finish& finish) {
    if (plan->slots()[1] && !checkpointing_.disk_file)
      return fail(IntegrateStatus::invalid_options, "two_level checkpointing needs a disk file");
    if (plan->slots()[1] && !std::is_same_v<T, double>)
      return fail(IntegrateStatus::invalid_options, "disk checkpoints are for double gradients only");
    if (options_.step > 0.0) {
      const FixedGrid grid(options_);
      FixedWalk walk(grid);
      run_scheduled(*plan, walk, typename FixedWalk::Position{}, y, finish);
    } else {
      const StepperTraits traits = stepper_.traits();
      const AdaptiveGrid adaptive(options_, std::min(traits.order, traits.embedded_order) + 1);
      AdaptiveWalk<T, A> walk(adaptive, n_);
      typename AdaptiveWalk<T, A>::Position start;
      start.state = adaptive.start(first_step(y));
      run_scheduled(*plan, walk, start, y, finish);
    }
  }

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
    name_event(problem_, *result_.diagnostics.nonfinite);
    if (solved.message.starts_with("Newton")) result_.diagnostics.nonfinite->cause = solved.message;
    result_.message = result_.diagnostics.nonfinite->describe();
  }
  // An option refused before the run: invalid, with what is wrong at its key.
  void refuse(const std::string& key, const std::string& problem, const std::string& message) {
    fail(IntegrateStatus::invalid_options, message);
    result_.diagnostics.refused = OptionRefusal{key, problem};
  }
  void refuse(const std::string& key, const std::string& problem) { refuse(key, problem, problem); }
  void short_budget(const std::string& key, std::uint64_t needed) {
    refuse(key,
           "holds no checkpoint slot: at least \"" + format_byte_size(needed) + "\" (" + std::to_string(needed) +
               " bytes) would",
           "the checkpoint " + key + " budget holds no slot: it needs at least " + std::to_string(needed) + " bytes");
  }
  static double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

  // What store-all keeps for `steps` steps: a record (or state) and a step per step.
  std::uint64_t store_all_bytes(std::size_t steps) const {
    std::size_t width = n_;
    if constexpr (RecordingStepper<S>) width = stepper_.record_size();
    return std::uint64_t(steps) * (width * sizeof(T) + 2 * sizeof(double)) +
           fixed_bytes(problem_.monitor, problem_.objective, steps);
  }

  // What a slot's place on the grid (a Walk's Position) takes beside its state.
  static constexpr std::uint64_t kPlaceBytes = 64;

  // Memory slots from the options: the slot count, or what the budget holds after the
  // rest of what the gradient keeps (the places of `disk_slots` included); nothing when
  // it holds none.
  std::optional<std::size_t> memory_slots_for(std::size_t steps, std::size_t disk_slots) const {
    if (checkpointing_.slots) return checkpointing_.slots;
    if (!checkpointing_.memory) return std::size_t(100);
    const std::uint64_t needed = memory_needed(steps, disk_slots);
    if (checkpointing_.memory < needed) return std::nullopt;
    return std::size_t(1 + (checkpointing_.memory - needed) / memory_slot_bytes());
  }
  // The least memory budget that holds one slot.
  std::uint64_t memory_needed(std::size_t steps, std::size_t disk_slots) const {
    return fixed_bytes(problem_.monitor, problem_.objective, steps) + disk_slots * kPlaceBytes +
           memory_slot_bytes();
  }
  std::uint64_t memory_slot_bytes() const {
    return CheckpointStore<T, A>(n_, checkpointing_.storage, context_of(options_).memory()).bytes_per_slot() + kPlaceBytes;
  }

  // Adaptive steps for revolve or two levels: one solve counts them.
  bool count_steps(const Vector& y, std::size_t& steps) {
    const IntegrateResult found =
        detail::count_adaptive_steps<A>(system_, problem_, values_of(y), to_algebra<A>(values_of(p_)));
    result_.diagnostics.sequence_steps = found.steps;
    result_.diagnostics.rhs_evaluations = found.rhs_evaluations;
    if (!found.ok()) {
      fail(found);
      return false;
    }
    steps = found.steps;
    return true;
  }

  double first_step(const Vector& y) {
    if (options_.initial_step > 0.0) return options_.initial_step;
    return initial_step(stepper_, options_.t0, options_.t1 - options_.t0, y.data(), p_.data(),
                        options_.rtol, options_.atol, stepper_.traits().order);
  }

  // One forward solve keeping every step (slot n holds step n's record, or its state
  // y_n), then the backward sweep.
  template <class Finish>
  void run_store_all(Vector& y, Finish& finish) {
    GradientDiagnostics& d = result_.diagnostics;
    const auto started = std::chrono::steady_clock::now();
    // Slot n holds step n's record where the stepper keeps records (written in place when
    // the store keeps float64, narrowed in from `record` for float32), else y_n.
    std::size_t width = n_;
    if constexpr (RecordingStepper<S>) width = stepper_.record_size();
    CheckpointStore<T, A> store(width, checkpointing_.storage, context_of(options_).memory());
    Vector record(RecordingStepper<S> && !store.in_place() ? width : 0);
    StepSequence sequence(options_.t0);
    if (options_.step > 0.0) {  // the number of steps is known: no regrowth on the way
      const std::size_t steps = FixedGrid(options_).size();
      sequence.reserve(steps);
      store.reserve(steps + 1);
    }
    // Keeps what step sequence.size() starts from (y_n, or where its record goes).
    auto keep = [&](const T* y_n) {
      if constexpr (RecordingStepper<S>) {
        if (store.in_place()) {
          store.resize(sequence.size() + 1);
          stepper_.record_to(store.slot(sequence.size()));
        } else {
          if (sequence.size() > 0) store.push_back(record.data());
          stepper_.record_to(record.data());
        }
      } else {
        store.push_back(y_n);
      }
    };
    keep(y.data());
    observe_forward(problem_, options_.t0, y.data());
    const IntegrateResult solved = integrate(
        stepper_, y.data(), p_.data(), options_, [](double, const T*) {},
        [&](const StepInterval& step, const T* y_next) {
          sequence.push_back(step);
          keep(y_next);
          observe_forward(problem_, step.t_next, y_next);
        });
    if constexpr (RecordingStepper<S>) {
      stepper_.record_to(nullptr);
      store.resize(sequence.size());  // a slot was opened for a step not taken
    }
    d.rhs_evaluations = stepper_.rhs_evaluations();
    if (!solved.ok()) return fail(solved);
    const std::size_t steps = sequence.size();
    d.schedule = "store_all";
    d.steps = d.adjoint_steps = steps;
    d.forward_steps = steps;  // nothing is taken again: the sweep reverses what was kept
    d.slots = d.peak_slots = store.slots();
    d.checkpoint_bytes = d.peak_slots * store.bytes_per_slot();
    d.memory_written = d.checkpoint_bytes;
    d.memory_read = d.checkpoint_bytes;
    d.forward_seconds = seconds_since(started);

    const auto backward = std::chrono::steady_clock::now();
    AdjointSweep<S, M, Obj> sweep(stepper_, problem_, p_, options_.t0, options_.t1, steps);
    Vector scratch(store.width());  // room for a widened slot
    sweep.seed(y.data(), sequence.t_end());  // y_N
    for (std::size_t n = steps; n-- > 0;) {
      if constexpr (RecordingStepper<S>)
        sweep.reverse_recorded(n, sequence[n], store.get(n, scratch.data()));
      else sweep.reverse_step(n, sequence[n], store.get(n, scratch.data()));
    }
    finish(sweep);
    d.rhs_evaluations = stepper_.rhs_evaluations();
    d.backward_seconds = seconds_since(backward);
  }

  // A schedule run against the backend, on the walk of the problem's step grid.
  template <class Walk, class Finish>
  void run_scheduled(CheckpointSchedule& schedule, Walk& walk, typename Walk::Position start,
                     const Vector& y, Finish& finish) {
    GradientDiagnostics& d = result_.diagnostics;
    const auto started = std::chrono::steady_clock::now();
    observe_forward(problem_, options_.t0, y.data());
    const auto capacity = schedule.slots();
    CheckpointStore<T, A> store(n_, checkpointing_.storage, context_of(options_).memory(), capacity[0],
                                capacity[1] ? checkpointing_.disk_file(capacity[1], n_) : nullptr,
                                capacity[1]);
    AdjointSweep<S, M, Obj> sweep(stepper_, problem_, p_, options_.t0, options_.t1, schedule.steps());
    ScheduleBackend<S, Walk, M, Obj> backend(stepper_, walk, sweep, store, p_, y, start);
    const std::size_t rhs_before = stepper_.rhs_evaluations();
    const ScheduleCounts counts = execute_schedule(schedule, backend);
    if (const auto& failure = backend.failure();
        failure && failure->outcome != AdaptiveGrid::Outcome::non_finite) {
      return fail(failure->outcome == AdaptiveGrid::Outcome::max_steps
                      ? IntegrateStatus::max_steps_reached
                      : IntegrateStatus::step_size_too_small,
                  "the step size fell below the minimum, or max_steps was reached, at t = " +
                      std::to_string(failure->t));
    }
    finish(sweep);
    d.schedule = schedule.name();
    d.steps = counts.steps;
    d.slots = capacity[0];
    d.disk_slots = capacity[1];
    d.peak_slots = counts.peak_slots;
    d.forward_steps = counts.forward_steps;
    d.recomputed_steps = counts.recomputed_steps;
    d.adjoint_steps = counts.adjoint_steps;
    d.rhs_evaluations += stepper_.rhs_evaluations() - rhs_before;
    const std::size_t memory_bytes = store.bytes_per_slot(Level::memory),
                      disk_bytes = store.bytes_per_slot(Level::disk);
    d.checkpoint_bytes = counts.peak_level_slots[0] * memory_bytes;
    d.memory_written = counts.writes[0] * memory_bytes;
    d.memory_read = counts.reads[0] * memory_bytes;
    d.disk_written = counts.writes[1] * disk_bytes;
    d.disk_read = counts.reads[1] * disk_bytes;
    d.forward_seconds = std::chrono::duration<double>(backend.first_adjoint_step() - started).count();
    d.backward_seconds = seconds_since(started) - d.forward_seconds;
  }

  S& stepper_;
  const System& system_;
  const GradientProblem<M, Obj>& problem_;
  std::span<const T> p_;
  const CheckpointOptions& checkpointing_;
  GradientResult<T>& result_;
  std::size_t n_;
  IntegrateOptions options_;
};

}  // namespace detail
}  // namespace backsweep
