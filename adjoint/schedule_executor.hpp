#pragma once
// ScheduleExecutor runs any CheckpointSchedule against a backend and counts what it did.
// The backend owns the numerics:
//   advance(from, to)   step the current state forward
//   store(slot, step)   copy the current state into a slot
//   restore(slot, step) make a slot's state current
//   adjoint_step(n)     reverse step n, given the current state at step n
// The executor checks that the schedule is consistent (a wrong schedule is a bug, so it
// throws std::logic_error) and counts forward steps, adjoint steps and peak slots.
#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "adjoint/checkpoint_schedule.hpp"

namespace backsweep {

struct ScheduleCounts {
  std::size_t recomputed_steps = 0;  // forward steps outside a step's own adjoint
  std::size_t adjoint_steps = 0;
  std::size_t peak_slots = 0;  // most slots holding a state at once
};

template <class Backend>
ScheduleCounts execute_schedule(const CheckpointSchedule& schedule, Backend& backend) {
  using Kind = CheckpointAction::Kind;
  ScheduleCounts counts;
  std::vector<std::ptrdiff_t> slot_step(schedule.slots, -1);  // -1: empty
  std::size_t in_use = 0, current = 0;
  std::size_t next_adjoint = schedule.steps;  // adjoint steps must run N-1, ..., 0
  auto fail = [](const std::string& what) { throw std::logic_error("checkpoint schedule: " + what); };

  schedule.generate([&](const CheckpointAction& action) {
    switch (action.kind) {
      case Kind::advance:
        if (action.step != current || action.to <= action.step || action.to >= next_adjoint)
          fail("advance from a state that is not current, or past the adjoint front");
        backend.advance(action.step, action.to);
        counts.recomputed_steps += action.to - action.step;
        current = action.to;
        break;
      case Kind::store:
        if (action.slot >= schedule.slots || slot_step[action.slot] != -1 || action.step != current)
          fail("store into a busy slot or of a state that is not current");
        backend.store(action.slot, action.step);
        slot_step[action.slot] = std::ptrdiff_t(action.step);
        counts.peak_slots = std::max(counts.peak_slots, ++in_use);
        break;
      case Kind::restore:
        if (action.slot >= schedule.slots || slot_step[action.slot] != std::ptrdiff_t(action.step))
          fail("restore from a slot that does not hold that step");
        backend.restore(action.slot, action.step);
        current = action.step;
        break;
      case Kind::adjoint_step:
        if (action.step != current || action.step + 1 != next_adjoint)
          fail("adjoint step out of order or without its state");
        backend.adjoint_step(action.step);
        next_adjoint = action.step;
        ++counts.adjoint_steps;
        break;
      case Kind::free:
        if (action.slot >= schedule.slots || slot_step[action.slot] == -1) fail("free of an empty slot");
        slot_step[action.slot] = -1;
        --in_use;
        break;
    }
  });
  if (next_adjoint != 0) fail("not every step was reversed");
  return counts;
}

}  // namespace backsweep
