// Two-level checkpointing: slow, large storage (disk) for the outer level, fast, small
// storage (memory) for the inner ones. The first sweep writes k = min(disk slots, N - 1)
// checkpoints to disk at even intervals (P is convex, so even segments cost least), then
// each segment is reversed, last first, by revolve from its disk checkpoint with the
// memory slots: every disk slot is written once and read as often as its segment's
// reversal restarts from it.
#include <optional>
#include <stdexcept>
#include <vector>

#include "adjoint/checkpoint_schedule.hpp"
#include "adjoint/detail/binomial_cost.hpp"
#include "adjoint/revolve_generator.hpp"

namespace backsweep {

namespace {

using Kind = CheckpointAction::Kind;

// Where segment j of `segments` + 1 even segments of `steps` starts (j = segments + 1:
// the end). steps * j / (segments + 1) without overflow: j <= segments < steps.
std::size_t segment_start(std::size_t steps, std::size_t segments, std::size_t j) {
  if (j > segments) return steps;
  const std::size_t whole = steps / (segments + 1), rest = steps % (segments + 1);
  return whole * j + rest * j / (segments + 1);
}

class TwoLevel final : public CheckpointSchedule {
 public:
  TwoLevel(std::size_t steps, std::size_t memory_slots, std::size_t disk_slots)
      : steps_(steps), memory_(memory_slots),
        segments_(steps > 1 ? std::min(disk_slots, steps - 1) : 0), free_(memory_slots - 1) {
    for (std::size_t i = 0; i + 1 < memory_slots; ++i) free_[i] = memory_slots - 1 - i;
  }

  std::optional<CheckpointAction> next(const ScheduleState& state) override {
    if (steps_ == 0) return std::nullopt;
    // The first sweep: y_0 to memory slot 0, then disk checkpoint j at start(j + 1).
    if (written_ == 0) {
      ++written_;
      return CheckpointAction{Kind::store, 0, 0, 0, Level::memory};
    }
    if (written_ <= segments_) {
      const std::size_t at = start(written_);
      if (state.current < at) return CheckpointAction{Kind::advance, state.current, at};
      ++written_;
      return CheckpointAction{Kind::store, at, at, written_ - 2, Level::disk};
    }
    // Then the segments, last first.
    for (;;) {
      if (segment_) {
        if (auto action = segment_->next(state.current)) return action;
        segment_.reset();
      }
      if (reversed_ > segments_) return std::nullopt;
      const std::size_t j = segments_ - reversed_++;  // segment j starts at start(j)
      const SlotRef slot = j == 0 ? SlotRef{0, Level::memory}
                                          : SlotRef{j - 1, Level::disk};
      segment_.emplace(start(j), start(j + 1), slot, free_.size() + 1, free_, costs_, true);
    }
  }
  std::array<std::size_t, kLevels> slots() const override { return {memory_, segments_}; }
  std::size_t steps() const override { return steps_; }
  std::string name() const override { return "two_level"; }

 private:
  std::size_t start(std::size_t j) const { return segment_start(steps_, segments_, j); }

  std::size_t steps_, memory_, segments_;
  std::vector<std::size_t> free_;
  detail::BinomialCost costs_;
  std::optional<detail::RevolveGenerator> segment_;
  std::size_t written_ = 0, reversed_ = 0;
};

}  // namespace

std::uint64_t two_level_recomputations(std::size_t steps, std::size_t memory_slots,
                                       std::size_t disk_slots) {
  // The first sweep to the last disk checkpoint, then each segment by revolve.
  const std::size_t segments = steps > 1 ? std::min(disk_slots, steps - 1) : 0;
  detail::BinomialCost costs;
  std::uint64_t total = segment_start(steps, segments, segments);
  for (std::size_t j = 0; j <= segments; ++j)
    total += costs.cost(segment_start(steps, segments, j + 1) -
                            segment_start(steps, segments, j),
                        memory_slots);
  return total;
}

std::unique_ptr<CheckpointSchedule> two_level_schedule(std::size_t steps,
                                                       std::size_t memory_slots,
                                                       std::size_t disk_slots) {
  if (memory_slots == 0) throw std::invalid_argument("two-level checkpointing needs a memory slot");
  return std::make_unique<TwoLevel>(steps, memory_slots, disk_slots);
}

}  // namespace backsweep
