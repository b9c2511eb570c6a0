#include "adjoint/revolve_generator.hpp"

#include <stdexcept>

namespace backsweep::detail {

using Kind = CheckpointAction::Kind;

RevolveGenerator::RevolveGenerator(std::size_t a, std::size_t b, SlotRef start, std::size_t slots,
                                   std::vector<std::size_t>& free, BinomialCost& costs,
                                   bool free_start)
    : free_(free), costs_(costs), start_(start), free_start_(free_start),
      pending_{{a, b, start, slots}} {}

std::optional<CheckpointAction> RevolveGenerator::next(std::size_t current) {
  if (!started_) {
    started_ = true;
    current_ = current;
  }
  while (queue_.empty() && !pending_.empty()) {
    const Range r = pending_.back();
    pending_.pop_back();
    expand(r);
  }
  if (queue_.empty() && !finished_) {
    finished_ = true;
    if (free_start_) release(start_);
  }
  if (queue_.empty()) return std::nullopt;
  const CheckpointAction action = queue_.front();
  queue_.pop_front();
  return action;
}

// One range: its actions go to the queue, or it splits into two pending ranges (the later
// one on top, so [a + m, b) is reversed before [a, a + m)).
void RevolveGenerator::expand(const Range& r) {
  if (r.b - r.a == 1) {
    bring(r.a, r.slot);
    emit(Kind::adjoint_step, r.a, r.a);
    if (!(r.slot == start_)) release(r.slot);
    return;
  }
  if (r.s + 1 >= r.b - r.a) {
    // Slots enough to keep every state of the range (the last one is current when its
    // adjoint runs): one sweep, then reverse. Cost l - 1, the minimum.
    bring(r.a, r.slot);
    kept_.assign(1, r.slot);  // kept_[i - a]: the slot of state i
    for (std::size_t i = r.a + 1; i < r.b; ++i) {
      advance(i - 1, i);
      if (i + 1 == r.b) break;
      kept_.push_back(acquire());
      emit(Kind::store, i, i, kept_.back());
    }
    emit(Kind::adjoint_step, r.b - 1, r.b - 1);
    for (std::size_t i = r.b - 1; i-- > r.a;) {
      bring(i, kept_[i - r.a]);
      emit(Kind::adjoint_step, i, i);
      if (!(kept_[i - r.a] == start_)) release(kept_[i - r.a]);
    }
    return;
  }
  if (r.s == 1) {
    // Only the stored state: advance from it to each step in turn, last first.
    for (std::size_t i = r.b; i-- > r.a;) {
      bring(r.a, r.slot);
      if (i > r.a) advance(r.a, i);
      emit(Kind::adjoint_step, i, i);
    }
    if (!(r.slot == start_)) release(r.slot);
    return;
  }
  const std::size_t m = costs_.best_split(r.b - r.a, r.s);
  bring(r.a, r.slot);
  advance(r.a, r.a + m);
  const SlotRef slot = acquire();
  emit(Kind::store, r.a + m, r.a + m, slot);
  pending_.push_back({r.a, r.a + m, r.slot, r.s});
  pending_.push_back({r.a + m, r.b, slot, r.s - 1});
}

void RevolveGenerator::emit(Kind kind, std::size_t step, std::size_t to, SlotRef slot) {
  queue_.push_back({kind, step, to, slot.index, slot.level});
}

void RevolveGenerator::advance(std::size_t from, std::size_t to) {
  emit(Kind::advance, from, to);
  current_ = to;
}

// Makes the state at `step` (kept in `slot`) current, restoring it if needed.
void RevolveGenerator::bring(std::size_t step, SlotRef slot) {
  if (current_ == step) return;
  emit(Kind::restore, step, step, slot);
  current_ = step;
}

SlotRef RevolveGenerator::acquire() {
  if (free_.empty()) throw std::logic_error("revolve: out of slots");
  const std::size_t slot = free_.back();
  free_.pop_back();
  return {slot, Level::memory};
}

void RevolveGenerator::release(SlotRef slot) {
  emit(Kind::free, 0, 0, slot);
  if (slot.level == Level::memory) free_.push_back(slot.index);
}

}  // namespace backsweep::detail
