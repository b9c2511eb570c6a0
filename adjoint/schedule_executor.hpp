#pragma once
// execute_schedule runs any CheckpointSchedule against a backend and counts what it did.
// The backend owns the numerics and the store:
//   advance(from, to)          step the current state forward
//   store(slot, level, step)   copy the current state into a slot
//   restore(slot, level, step) make a slot's state current
//   adjoint_step(n)            reverse step n, given the current state at step n
//   at_end()                   whether the current state is the last one (asked only while
//                              the schedule does not know N)
// The executor checks that the schedule is consistent (a wrong schedule is a bug, so it
// throws std::logic_error) and counts forward steps, adjoint steps, slots and the slot
// writes and reads of each level.
#include <algorithm>
#include <array>
#include <cstddef>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "adjoint/checkpoint_schedule.hpp"

namespace backsweep {

struct ScheduleCounts {
  std::size_t steps = 0;             // N
  // Forward steps outside a step's own adjoint, the first sweep included (Griewank and
  // Walther's count); of them, those taken again (a step the sweep had already taken).
  std::size_t forward_steps = 0, recomputed_steps = 0;
  std::size_t adjoint_steps = 0;
  std::size_t peak_slots = 0;        // most slots holding a state at once, all levels
  std::array<std::size_t, kLevels> peak_level_slots{}, writes{}, reads{};
};

template <class Backend>
ScheduleCounts execute_schedule(CheckpointSchedule& schedule, Backend& backend) {
  using Kind = CheckpointAction::Kind;
  constexpr std::size_t kUnknown = std::numeric_limits<std::size_t>::max();
  ScheduleCounts counts;
  const std::array<std::size_t, kLevels> capacity = schedule.slots();
  std::array<std::vector<std::size_t>, kLevels> slot_step;  // kUnknown: empty
  for (std::size_t level = 0; level < kLevels; ++level) slot_step[level].assign(capacity[level], kUnknown);
  std::array<std::size_t, kLevels> in_use{};
  ScheduleState state;
  std::size_t furthest = 0;  // the furthest step any advance reached
  // Adjoint steps must run N-1, ..., 0; N is known up front, or when the sweep ends.
  std::size_t next_adjoint = schedule.steps() ? schedule.steps() : kUnknown;
  auto fail = [](const std::string& what) { throw std::logic_error("checkpoint schedule: " + what); };
  auto slot_of = [&](const CheckpointAction& action) -> std::size_t& {
    const auto level = std::size_t(action.level);
    if (action.slot >= capacity[level]) fail("a slot out of range");
    return slot_step[level][action.slot];
  };

  while (const auto action = schedule.next(state)) {
    switch (action->kind) {
      case Kind::advance:
        if (action->step != state.current || action->to <= action->step ||
            (next_adjoint != kUnknown && action->to >= next_adjoint))
          fail("advance from a state that is not current, or past the adjoint front");
        backend.advance(action->step, action->to);
        counts.forward_steps += action->to - action->step;
        counts.recomputed_steps += std::min(action->to, furthest) - std::min(action->step, furthest);
        furthest = std::max(furthest, action->to);
        state.current = action->to;
        if (next_adjoint == kUnknown && backend.at_end()) {
          state.at_end = true;
          next_adjoint = state.current;
        }
        break;
      case Kind::store: {
        std::size_t& step = slot_of(*action);
        if (step != kUnknown || action->step != state.current)
          fail("store into a busy slot or of a state that is not current");
        backend.store(action->slot, action->level, action->step);
        step = action->step;
        const auto level = std::size_t(action->level);
        counts.peak_level_slots[level] = std::max(counts.peak_level_slots[level], ++in_use[level]);
        counts.peak_slots = std::max(counts.peak_slots, in_use[0] + in_use[1]);
        ++counts.writes[level];
        break;
      }
      case Kind::restore:
        if (slot_of(*action) != action->step) fail("restore from a slot that does not hold that step");
        backend.restore(action->slot, action->level, action->step);
        state.current = action->step;
        state.at_end = false;
        ++counts.reads[std::size_t(action->level)];
        break;
      case Kind::adjoint_step:
        if (action->step != state.current || action->step + 1 != next_adjoint)
          fail("adjoint step out of order or without its state");
        backend.adjoint_step(action->step);
        next_adjoint = action->step;
        ++counts.adjoint_steps;
        break;
      case Kind::free: {
        std::size_t& step = slot_of(*action);
        if (step == kUnknown) fail("free of an empty slot");
        step = kUnknown;
        --in_use[std::size_t(action->level)];
        break;
      }
    }
  }
  if (next_adjoint != 0) fail("not every step was reversed");
  counts.steps = counts.adjoint_steps;
  return counts;
}

// What a schedule does to reverse `steps` steps, counted without numerics (a dry run: the
// state is only a step index, so that the online schedule learns N on reaching it).
inline ScheduleCounts count_schedule(CheckpointSchedule& schedule, std::size_t steps) {
  struct StepIndex {
    std::size_t current = 0, steps = 0;
    void advance(std::size_t, std::size_t to) { current = to; }
    void store(std::size_t, Level, std::size_t) {}
    void restore(std::size_t, Level, std::size_t step) { current = step; }
    void adjoint_step(std::size_t) {}
    bool at_end() const { return current == steps; }
  } backend{0, steps};
  return execute_schedule(schedule, backend);
}

}  // namespace backsweep
