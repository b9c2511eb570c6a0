// Online checkpointing: the number of steps is learnt only when the forward sweep ends.
//
// Forward, the schedule keeps the newest states while slots are free; once they are full
// it decides, every so often, whether to keep the current state and which kept one to
// give up. Each decision takes the choice with the least reverse cost if the run ended at
// the next step, the reverse cost of a set of checkpoints 0 = c_0 < ... < c_k being that
// of reversing each segment [c_j, c_{j+1}) optimally (revolve) with the s - j slots left
// to it: sum_j P(c_{j+1} - c_j, s - j). Decisions are taken every max(1, n / (16 s))
// steps, which keeps the schedule's own work at O(s) per decision and O(s^2 log N) in all
// while costing little against deciding at every step (bench/online_schedule).
// Backward, it reverses the segments last first, each with revolve.
#include <optional>
#include <stdexcept>
#include <vector>

#include "adjoint/checkpoint_schedule.hpp"
#include "adjoint/detail/binomial_cost.hpp"
#include "adjoint/revolve_generator.hpp"

namespace backsweep {

namespace {

using Kind = CheckpointAction::Kind;

class Online final : public CheckpointSchedule {
 public:
  explicit Online(std::size_t slots) : slots_(slots), free_(slots - 1) {
    for (std::size_t i = 0; i + 1 < slots; ++i) free_[i] = slots - 1 - i;  // slot 1 first
  }

  std::optional<CheckpointAction> next(const ScheduleState& state) override {
    if (!queue_.empty()) return pop();
    if (!steps_) {
      if (!state.at_end) return forward(state.current);
      steps_ = segment_end_ = state.current;
    }
    return backward(state.current);
  }
  std::array<std::size_t, kLevels> slots() const override { return {slots_, 0}; }
  std::size_t steps() const override { return steps_; }
  std::string name() const override { return "online"; }

 private:
  struct Checkpoint {
    std::size_t step, slot;
  };

  CheckpointAction pop() {
    const CheckpointAction action = queue_.front();
    queue_.erase(queue_.begin());
    return action;
  }

  // At state n of the forward sweep: what to keep, then one more step.
  std::optional<CheckpointAction> forward(std::size_t n) {
    if (kept_.empty()) {
      keep(n, 0);
    } else if (!free_.empty()) {
      keep(n, take_free());
    } else if (n % std::max<std::size_t>(1, n / (16 * slots_)) == 0) {
      if (const std::optional<std::size_t> evict = best_eviction(n)) {
        const std::size_t slot = kept_[*evict].slot;
        queue_.push_back({Kind::free, 0, 0, slot});
        kept_.erase(kept_.begin() + std::ptrdiff_t(*evict));
        keep(n, slot);
      }
    }
    queue_.push_back({Kind::advance, n, n + 1});
    return pop();
  }

  void keep(std::size_t n, std::size_t slot) {
    kept_.push_back({n, slot});
    queue_.push_back({Kind::store, n, n, slot});
  }
  std::size_t take_free() {
    const std::size_t slot = free_.back();
    free_.pop_back();
    return slot;
  }

  // With every slot busy, at state n: which kept state to give up for n (an index into
  // kept_, never the initial state's), or nothing when keeping n costs more than it saves.
  // The costs are those of reversing if the run ended at n + 1.
  std::optional<std::size_t> best_eviction(std::size_t n) {
    const std::size_t k = kept_.size() - 1, s = slots_, end = n + 1;
    auto point = [&](std::size_t i) { return i <= k ? kept_[i].step : n; };  // p_{k+1} = n
    // Segment i = [p_i, p_{i+1}) with s - i slots (A) or one more (B).
    std::vector<std::uint64_t> prefix_a(k + 2, 0), suffix_b(k + 2, 0);
    for (std::size_t i = 0; i <= k; ++i)
      prefix_a[i + 1] = prefix_a[i] + costs_.cost(point(i + 1) - point(i), s - i);
    for (std::size_t i = k + 1; i-- > 1;)
      suffix_b[i] = suffix_b[i + 1] + costs_.cost(point(i + 1) - point(i), s - i + 1);
    // Keeping nothing new: the last segment runs to the end.
    std::uint64_t best = prefix_a[k] + costs_.cost(end - point(k), s - k);
    std::optional<std::size_t> choice;
    for (std::size_t j = 1; j <= k; ++j) {
      // Without p_j and with n: [p_{j-1}, p_{j+1}) merged, later segments one slot richer.
      const std::uint64_t total = prefix_a[j - 1] +
                                  costs_.cost(point(j + 1) - point(j - 1), s - j + 1) +
                                  suffix_b[j + 1] + costs_.cost(end - n, s - k);
      if (total < best) {
        best = total;
        choice = j;
      }
    }
    return choice;
  }

  // The kept states' segments, last first, each reversed by revolve.
  std::optional<CheckpointAction> backward(std::size_t current) {
    for (;;) {
      if (segment_) {
        if (auto action = segment_->next(current)) return action;
        segment_.reset();
        kept_.pop_back();
      }
      if (kept_.empty()) return std::nullopt;
      const Checkpoint& start = kept_.back();
      const std::size_t end = segment_end_;
      segment_end_ = start.step;
      segment_.emplace(start.step, end, SlotRef{start.slot, Level::memory},
                       free_.size() + 1, free_, costs_, true);
    }
  }

  std::size_t slots_, steps_ = 0;
  std::vector<std::size_t> free_;
  std::vector<Checkpoint> kept_;  // by step
  std::vector<CheckpointAction> queue_;
  detail::BinomialCost costs_;
  std::optional<detail::RevolveGenerator> segment_;
  std::size_t segment_end_ = 0;  // where the next segment to reverse ends
};

}  // namespace

std::unique_ptr<CheckpointSchedule> online_schedule(std::size_t slots) {
  if (slots == 0) throw std::invalid_argument("online checkpointing needs at least one slot");
  return std::make_unique<Online>(slots);
}

}  // namespace backsweep
