#pragma once
// A gradient problem: model, method, initial state, parameters, objective and solver
// options; what gradient(), tangent_gradient() and the checks take. Plus the options and
// result types (CheckpointOptions; GradientResult with its diagnostics counters), and the
// pieces every driver shares: the system a problem integrates, its initial state, and its
// step sequence.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "adjoint/growth_monitor.hpp"
#include "adjoint/objective.hpp"
#include "adjoint/slot_file.hpp"
#include "solvers/integrate.hpp"
#include "solvers/integrate_options.hpp"
#include "solvers/linear_solver.hpp"
#include "solvers/method.hpp"
#include "solvers/step_grid.hpp"
#include "adjoint/stiffness.hpp"

namespace backsweep {

template <Model M, class Obj>
struct GradientProblem {
  const M& model;
  Method method;
  std::vector<double> y0;  // values ignored when the objective has an `initial` term
  std::vector<double> p;
  Obj objective;
  // Time span, fixed step or tolerances. The observation times become output times.
  IntegrateOptions integrate;
  MonitorOptions monitor = {};  // thresholds of the growth monitor (adjoint or tangent)
  // Called during the backward sweep (double gradients) with lambda(t) = dJ/dy(t) at t_N
  // and at the start of every step, last first: what adjoint fields are written from.
  std::function<void(double t, const double* lambda)> adjoint_observer = {};
  // Called (double gradients) with each state y(t) the forward sweep computes: at t0 and at
  // the end of every step, recomputations included (bitwise the same each time); the
  // SUNDIALS methods, at t0, the output times of `integrate` and t1 (CVODES interpolates
  // there without changing its steps). What state fields are written from: no second solve.
  std::function<void(double t, const double* y)> forward_observer = {};
};

struct CheckpointOptions {
  // automatic: store_all when nothing bounds memory, or when every step fits the memory
  // budget; else revolve when the number of steps is known (fixed steps), online when it
  // is not (adaptive); two_level instead of revolve when a disk budget makes it cheaper.
  // The diagnostics say which, and why.
  enum class Schedule { automatic, store_all, revolve, online, two_level };
  Schedule schedule = Schedule::automatic;
  // Memory slots, the initial state's included (>= 1); 0: from `memory`, or 100.
  std::size_t slots = 0;
  // A budget in bytes for everything the gradient keeps (slots with their place on the
  // step grid, the monitor's history, the observation list), turned into slots by the
  // engine (0: none). A budget too small for one slot is an invalid option.
  std::uint64_t memory = 0;
  // Disk slots (two_level), or a budget in bytes for them, in a file `disk_file` opens.
  std::size_t disk_slots = 0;
  std::uint64_t disk = 0;
  // The memory this machine has (0: unchecked): store_all on fixed steps that would need
  // more is refused before the run, as an invalid option naming the bytes.
  std::uint64_t machine_memory = 0;
  SlotFileOpener disk_file{};
  // float32 halves the memory of the slots; the states restored from them are rounded,
  // so the gradient changes at the level of float precision (double only).
  enum class Storage { float64, float32 };
  Storage storage = Storage::float64;
};

// Where a NaN or Inf first appeared.
struct NonFinite {
  // "forward" or "backward"; "tangent" where a forward tangent's derivatives overflowed
  // and the state did not; or the objective's "terminal" or "observation" term, or
  // "objective" where the terms are summed (the forward tangent)
  std::string phase;
  std::size_t step = 0, component = 0;
  double time = 0.0;
  std::string after = {};  // ", just after event 'dose'" where a jump made it (TimeEvents::just_after)
  std::string cause = {};  // what the stepper knows of it (an implicit stage's failed solve)
  // With the states' names, the component is named: a state, its adjoint, or (past the
  // states) the quadrature of the objective's running cost.
  std::string describe(const std::vector<std::string>& names = {}) const {
    std::ostringstream what;
    if (phase == "objective") {
      what << "non-finite value in the objective's terms (every state is finite up to t = " << time << ")";
      return what.str();
    }
    if (phase == "terminal" || phase == "observation") {  // component: the state a derivative is by
      what << "non-finite value in the objective's " << phase << " term at t = " << time;
      if (component < names.size()) what << " (its derivative by state '" << names[component] << "')";
      return what.str();
    }
    if (phase == "tangent") {
      what << "non-finite tangent at step " << step << ", t = " << time << ": the derivatives of "
           << (component < names.size() ? "state '" + names[component] + "'" : "component " + std::to_string(component))
           << " by the parameters and initial state overflowed while the state stayed finite (the sensitivities of a "
              "chaotic or unstable run grow exponentially: shorten [time] end, or take mode = \"adjoint\", whose "
              "growth monitor says over what horizon a gradient means something)";
      return what.str();
    }
    what << "non-finite value in the " << phase << " sweep at step " << step << ", t = " << time << ", in ";
    if (component < names.size())
      what << (phase == "backward" ? "the adjoint of '" : "state '") << names[component] << "'";
    else if (!names.empty() && phase == "forward")
      what << "the quadrature of the objective's integral";
    else
      what << "component " << component;
    return what.str() + after + (cause.empty() ? "" : ": " + cause);
  }
};

// A checkpointing option the engine refused before the run (a budget too small for one
// slot, a store_all beyond the machine's memory): its key in [checkpointing] and why, so
// that a command reports it as a config error at that key.
struct OptionRefusal {
  std::string key;  // memory, disk or schedule
  std::string problem;
};

struct GradientDiagnostics {
  std::string method, schedule;
  std::string schedule_reason;  // why `automatic` chose it, or that the options did
  std::optional<OptionRefusal> refused;  // set when the run failed for it
  std::size_t disk_slots = 0;
  // Slot writes and reads per level (memory, disk), in bytes.
  std::size_t memory_written = 0, memory_read = 0, disk_written = 0, disk_read = 0;
  std::string derivatives;  // adjoint: how the model's VJPs are taken (hand_written, ...)
  std::size_t steps = 0, slots = 0, peak_slots = 0;
  // Forward steps outside a step's own adjoint, the first sweep included (Griewank and
  // Walther's count); of them, those taken again.
  std::size_t forward_steps = 0, recomputed_steps = 0;
  std::size_t sequence_steps = 0;    // adaptive revolve: the solve that counted the steps
  std::size_t adjoint_steps = 0;
  std::size_t rhs_evaluations = 0, vjp_evaluations = 0;
  std::string storage = "float64";   // of the checkpoint slots
  std::size_t checkpoint_bytes = 0;  // peak memory the slots held
  double forward_seconds = 0.0, backward_seconds = 0.0;
  std::optional<NonFinite> nonfinite;
  std::optional<GrowthReport> monitor;  // every mode: the adjoint, or the tangent, watched
  std::optional<StiffnessEstimate> stiffness;  // explicit methods (adjoint or tangent)
  std::optional<LinearSolveReport> linear_solves;  // implicit methods: the solver, Krylov counts
};

template <class T = double>
struct GradientResult {
  IntegrateStatus status = IntegrateStatus::success;
  std::string message;
  T value{};
  std::vector<T> dJ_dp, dJ_dy0;
  GradientDiagnostics diagnostics;
  bool ok() const { return status == IntegrateStatus::success && !diagnostics.nonfinite; }
};

namespace detail {

// Names the events a forward sweep's NaN came just after, if it did.
template <Model M, class Obj>
void name_event(const GradientProblem<M, Obj>& problem, NonFinite& at) {
  if (problem.integrate.events && at.phase == "forward") at.after = problem.integrate.events->just_after(at.time);
}

// Shows a state of the forward sweep to the problem's forward observer (double only).
template <class T, Model M, class Obj>
void observe_forward(const GradientProblem<M, Obj>& problem, double t, const T* y) {
  if constexpr (std::is_same_v<T, double>)
    if (problem.forward_observer) problem.forward_observer(t, y);
}

// Calls f(system) with the model, or with the model plus the running-cost quadrature.
template <Model M, class Obj, class F>
decltype(auto) with_system(const M& model, const Obj& objective, F&& f) {
  if constexpr (Obj::has_running) {
    const WithQuadrature<M, decltype(objective.running)> system{&model, &objective.running};
    return f(system);
  } else {
    return f(model);
  }
}

// The initial state of the system (quadrature 0 appended when there is one). With an
// `initial` term it is y0(p), and the tangent lanes of `y0` (not its values) perturb it:
// a tangent solve seeded on y0 then gives dJ/dy0, the sensitivity to the initial state,
// as the adjoint's lambda_0 does.
template <class T, Model M, class Obj>
std::vector<T> initial_state_before_events(const GradientProblem<M, Obj>& problem, const std::vector<T>& y0,
                                           const std::vector<T>& p) {
  const std::size_t n = state_size(problem.model);
  std::vector<T> y(n + (Obj::has_running ? 1 : 0), T(0));
  if constexpr (Obj::has_initial) {
    problem.objective.initial(p.data(), y.data());
    if constexpr (is_dual_v<T>)
      for (std::size_t i = 0; i < std::min(n, y0.size()); ++i)
        for (int k = 0; k < T::lanes; ++k) y[i].d[k] += y0[i].d[k];
  } else {
    for (std::size_t i = 0; i < n; ++i) y[i] = y0[i];
  }
  return y;
}

// The state the first step starts from: the initial state, after the events at t0 (if any).
template <class T, Model M, class Obj>
std::vector<T> initial_state(const GradientProblem<M, Obj>& problem, const std::vector<T>& y0,
                             const std::vector<T>& p) {
  std::vector<T> y = initial_state_before_events(problem, y0, p);
  if (problem.integrate.events) problem.integrate.events->apply_at(problem.integrate.t0, p.data(), y.data());
  return y;
}

template <class Vector>
std::vector<double> values_of(const Vector& x) {
  std::vector<double> v(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) v[i] = value_of(x[i]);
  return v;
}

// The solver options with every observation time as an output time, so the steps land
// on them (several terms may share one).
template <class Obj>
IntegrateOptions landing_options(IntegrateOptions options, const Obj& objective) {
  options.output_times = objective.observation_times;
  std::sort(options.output_times.begin(), options.output_times.end());
  options.output_times.erase(std::unique(options.output_times.begin(), options.output_times.end()),
                             options.output_times.end());
  return options;
}

// The (step, term) pairs of the observation terms, ordered by step: drivers walk them
// with a cursor, so nothing is kept per step. Fails when a time is not on the grid.
struct ObservationSteps {
  std::vector<std::size_t> step, term;
};
template <class Obj>
std::optional<std::string> observation_steps(const Obj& objective, const StepSequence& sequence,
                                             ObservationSteps& at) {
  at = {};
  std::vector<std::pair<std::size_t, std::size_t>> pairs;
  for (std::size_t k = 0; k < objective.observation_times.size(); ++k) {
    const double t = objective.observation_times[k];
    const std::size_t step = sequence.index_of(t);
    if (step == StepSequence::npos)
      return "observation time " + std::to_string(t) + " is not in the time span";
    pairs.emplace_back(step, k);
  }
  std::stable_sort(pairs.begin(), pairs.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [step, term] : pairs) {
    at.step.push_back(step);
    at.term.push_back(term);
  }
  return std::nullopt;
}

// The step sequence of the problem's solve at (y0, p), from the values (so a Dual run
// replays the same steps): the fixed grid, or one adaptive solve.
template <class System, Model M, class Obj>
IntegrateResult step_sequence(const System& system, const GradientProblem<M, Obj>& problem,
                              const std::vector<double>& y0, const std::vector<double>& p,
                              StepSequence& sequence) {
  const IntegrateOptions options = landing_options(problem.integrate, problem.objective);
  IntegrateResult result;
  if (auto why = options.invalid_reason(problem.method.adaptive())) {
    result.status = IntegrateStatus::invalid_options;
    result.message = *why;
    return result;
  }
  if (options.step > 0.0) {
    if (!fixed_step_sequence(options, sequence)) {
      result.status = IntegrateStatus::max_steps_reached;
      result.message = too_many_fixed_steps(options);
    }
    result.steps = sequence.size();
    return result;
  }
  sequence = StepSequence(options.t0);
  return with_stepper<double>(system, problem.method, options.events.get(), [&](auto& stepper) {
    std::vector<double> y = y0;
    return integrate(stepper, y.data(), p.data(), options, [](double, const double*) {},
                     [&](const StepInterval& step, const double*) { sequence.push_back(step); });
  });
}

// The same solve for adaptive steps, keeping nothing: its `steps` is their number.
template <Algebra A = CpuAlgebra, class System, Model M, class Obj>
IntegrateResult count_adaptive_steps(const System& system, const GradientProblem<M, Obj>& problem,
                                     const std::vector<double>& y0,
                                     const typename A::template vector<double>& p) {
  const IntegrateOptions options = landing_options(problem.integrate, problem.objective);
  return with_stepper<double, A>(system, problem.method, options.events.get(), [&](auto& stepper) {
    typename A::template vector<double> y(y0.begin(), y0.end());
    return integrate(stepper, y.data(), p.data(), options, [](double, const double*) {});
  });
}

}  // namespace detail
}  // namespace backsweep
