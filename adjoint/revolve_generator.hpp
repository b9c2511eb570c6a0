#pragma once
// The optimal (binomial, Griewank-Walther) reversal of a range of steps, generated one
// action at a time: what revolve, the online schedule's backward phase and each segment
// of the two-level schedule run.
#include <cstddef>
#include <deque>
#include <optional>
#include <vector>

#include "adjoint/checkpoint_schedule.hpp"
#include "adjoint/detail/binomial_cost.hpp"

namespace backsweep::detail {

class RevolveGenerator {
 public:
  // Reverses steps [a, b) from the state at a, held in `start`, with `slots` slots in all:
  // `start` and up to slots - 1 memory slots taken from `free` (and given back). `start`
  // is freed at the end when `free_start`.
  RevolveGenerator(std::size_t a, std::size_t b, SlotRef start, std::size_t slots,
                   std::vector<std::size_t>& free, BinomialCost& costs, bool free_start);

  // The next action, the current state being at `current` (the executor's); nothing
  // when the range is reversed.
  std::optional<CheckpointAction> next(std::size_t current);

 private:
  struct Range {
    std::size_t a, b;
    SlotRef slot;
    std::size_t s;
  };
  void expand(const Range& r);
  void emit(CheckpointAction::Kind kind, std::size_t step, std::size_t to, SlotRef slot = {});
  void advance(std::size_t from, std::size_t to);
  void bring(std::size_t step, SlotRef slot);
  SlotRef acquire();
  void release(SlotRef slot);

  std::vector<std::size_t>& free_;
  BinomialCost& costs_;
  SlotRef start_;
  bool free_start_, started_ = false, finished_ = false;
  std::vector<Range> pending_;
  std::deque<CheckpointAction> queue_;
  std::vector<SlotRef> kept_;
  std::size_t current_ = 0;
};

}  // namespace backsweep::detail
