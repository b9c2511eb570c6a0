#pragma once
// The backend a checkpoint schedule runs against (schedule_executor.hpp): it holds the
// current state and where it is on the step grid, keeps states in the checkpoint store,
// takes forward steps, and hands each step to the adjoint sweep to reverse. Nothing in it
// grows with the number of steps: a slot keeps its state and its place on the grid.
//
// Where a state is on the grid is a Walk's Position:
//   FixedWalk     the step index; step n's interval comes from the fixed grid;
//   AdaptiveWalk  the adaptive stepping state (AdaptiveState). A slot's is rewritten, once
//                 the step from it has been accepted, with the state just before that
//                 attempt: stepping on from a restored slot then takes no rejected
//                 attempt, and the step from it is known without taking it.
#include <chrono>
#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "adjoint/checkpoint_schedule.hpp"
#include "adjoint/checkpoint_store.hpp"
#include "adjoint/adjoint_sweep.hpp"
#include "solvers/adaptive_grid.hpp"
#include "solvers/step_grid.hpp"

namespace backsweep::detail {

// Why a forward step could not be taken (adaptive steps only).
struct StepFailure {
  AdaptiveGrid::Outcome outcome;
  double t;
  std::size_t component;
};

class FixedWalk {
 public:
  struct Position {
    std::size_t n = 0;
  };
  explicit FixedWalk(const FixedGrid& grid) : grid_(grid), steps_(grid.size()) {}

  double time(const Position& at) const { return at.n < steps_ ? grid_.at(at.n).t : grid_.at(steps_ - 1).t_next; }
  bool at_end(const Position& at) const { return at.n == steps_; }
  std::optional<StepInterval> known_step(const Position& at) const { return grid_.at(at.n); }

  // One step from (y, at) into next; `at` moves on.
  template <class S, class T>
  std::optional<StepFailure> step(S& stepper, Position& at, const T* y, const T* p, T* next,
                                  StepInterval& taken, Position* before) {
    if (before) *before = at;
    taken = grid_.at(at.n);
    stepper.step(taken, y, p, next);
    ++at.n;
    return std::nullopt;
  }

 private:
  const FixedGrid& grid_;
  std::size_t steps_;
};

template <class T, class A>
class AdaptiveWalk {
 public:
  struct Position {
    std::size_t n = 0;
    AdaptiveState state;
    bool next_accepted = false;  // the next attempt is known to be accepted
  };
  AdaptiveWalk(const AdaptiveGrid& grid, std::size_t n) : grid_(grid), error_(n) {}

  double time(const Position& at) const { return at.state.t; }
  bool at_end(const Position& at) const { return grid_.done(at.state); }
  std::optional<StepInterval> known_step(const Position& at) const {
    if (!at.next_accepted) return std::nullopt;
    return grid_.next_interval(at.state);
  }

  // Attempts from (y, at) into next until one is accepted; `at` moves on, and `before`
  // (if given) receives the position just before the accepted attempt.
  template <class S>
  std::optional<StepFailure> step(S& stepper, Position& at, const T* y, const T* p, T* next,
                                  StepInterval& taken, Position* before) {
    for (;;) {
      const Position trying = at;
      const auto outcome = grid_.attempt(stepper, at.state, y, p, next, error_.data(), taken, failed_);
      switch (outcome) {
        case AdaptiveGrid::Outcome::accepted:
          if (before) *before = trying, before->next_accepted = true;
          ++at.n;
          at.next_accepted = false;
          return std::nullopt;
        case AdaptiveGrid::Outcome::rejected:
          continue;
        case AdaptiveGrid::Outcome::non_finite:
          return StepFailure{AdaptiveGrid::Outcome::non_finite, taken.t_next, failed_};
        case AdaptiveGrid::Outcome::max_steps:
        case AdaptiveGrid::Outcome::step_too_small:
          return StepFailure{outcome, at.state.t, 0};
      }
    }
  }

 private:
  const AdaptiveGrid& grid_;
  typename A::template vector<T> error_;
  std::size_t failed_ = AdaptiveGrid::kNone;
};

template <ReversibleStepper S, class Walk, Model M, class Obj>
class ScheduleBackend {
 public:
  using T = typename S::scalar_type;
  using A = typename S::algebra_type;
  using Position = typename Walk::Position;

  ScheduleBackend(S& stepper, Walk& walk, AdjointSweep<S, M, Obj>& sweep,
                  CheckpointStore<T, A>& store, std::span<const T> p,
                  const typename A::template vector<T>& y0,
                  Position start)
      : stepper_(stepper), walk_(walk), sweep_(sweep), store_(store), p_(p),
        n_(stepper.state_size()), current_(y0.begin(), y0.end()), next_(n_), at_(start),
        positions_{std::vector<Position>(store.slots(Level::memory)),
                   std::vector<Position>(store.slots(Level::disk))} {
    if constexpr (RecordingStepper<S>) record_.resize(stepper.record_size());
  }

  void advance(std::size_t from, std::size_t to) {
    for (std::size_t n = from; n < to && ok(); ++n) {
      StepInterval taken;
      Position before;
      if (auto failure = walk_.step(stepper_, at_, current_.data(), p_.data(), next_.data(), taken,
                                    holder_ ? &before : nullptr))
        return fail(*failure, n);
      stepper_.accept();  // consecutive steps share a first-same-as-last slope
      if (holder_) positions(*holder_) = before;  // its next step needs no retrying now
      holder_.reset();
      std::swap(current_, next_);
      sweep_.check_forward(current_.data(), n + 1, taken.t_next);
      if (walk_.at_end(at_)) sweep_.seed(current_.data(), taken.t_next);
    }
  }
  void store(std::size_t slot, Level level, std::size_t) {
    store_.put(slot, level, current_.data());
    positions({slot, level}) = at_;
    holder_ = SlotRef{slot, level};
  }
  void restore(std::size_t slot, Level level, std::size_t) {
    copy<A>(n_, store_.get(slot, level, next_.data()), current_.data());
    at_ = positions({slot, level});
    holder_ = SlotRef{slot, level};
    stepper_.restart();
  }
  bool at_end() const { return walk_.at_end(at_); }

  void adjoint_step(std::size_t n) {
    if (!first_adjoint_) first_adjoint_ = std::chrono::steady_clock::now();
    if (!ok()) return;
    const std::optional<StepInterval> known = walk_.known_step(at_);
    if (sweep_.seeded() && known) return sweep_.reverse_step(n, *known, current_.data());
    // Take the step: to seed from its end, or to learn which it is (keeping its record).
    StepInterval taken;
    Position at = at_, before;
    if constexpr (RecordingStepper<S>) stepper_.record_to(record_.data());
    const auto failure =
        walk_.step(stepper_, at, current_.data(), p_.data(), next_.data(), taken, &before);
    if constexpr (RecordingStepper<S>) stepper_.record_to(nullptr);
    if (failure) return fail(*failure, n);
    if (holder_) positions(*holder_) = before;
    if (!sweep_.seeded()) {
      sweep_.check_forward(next_.data(), n + 1, taken.t_next);
      sweep_.seed(next_.data(), taken.t_next);
    }
    if constexpr (RecordingStepper<S>) sweep_.reverse_recorded(n, taken, record_.data());
    else sweep_.reverse_step(n, taken, current_.data());
  }

  const std::optional<StepFailure>& failure() const { return failure_; }
  // When the first adjoint step began: the end of the first forward sweep.
  std::chrono::steady_clock::time_point first_adjoint_step() const {
    return first_adjoint_.value_or(std::chrono::steady_clock::now());
  }

 private:
  bool ok() const { return !failure_ && !sweep_.nonfinite(); }
  void fail(const StepFailure& failure, std::size_t n) {
    failure_ = failure;
    if (failure.outcome == AdaptiveGrid::Outcome::non_finite)
      sweep_.check_forward(next_.data(), n + 1, failure.t);
  }
  Position& positions(const SlotRef& slot) {
    return positions_[std::size_t(slot.level)][slot.index];
  }

  S& stepper_;
  Walk& walk_;
  AdjointSweep<S, M, Obj>& sweep_;
  CheckpointStore<T, A>& store_;
  std::span<const T> p_;
  std::size_t n_;
  typename A::template vector<T> current_, next_, record_;
  Position at_;
  std::optional<SlotRef> holder_;  // the slot that holds the current state, if one does
  std::vector<Position> positions_[kLevels];
  std::optional<StepFailure> failure_;
  std::optional<std::chrono::steady_clock::time_point> first_adjoint_;
};

}  // namespace backsweep::detail
