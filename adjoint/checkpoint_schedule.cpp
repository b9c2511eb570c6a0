#include "adjoint/checkpoint_schedule.hpp"

#include <algorithm>
#include <cctype>
#include <limits>
#include <stdexcept>
#include <utility>

namespace backsweep {

namespace {

using Kind = CheckpointAction::Kind;
__extension__ typedef unsigned __int128 uint128;  // exact intermediate products

// The optimal cost P(l, s) of reversing l steps from a stored state with s slots (the
// stored state's own included), and the split that achieves it. Tables of
// beta(s, t) = C(s + t, s) are built once per s, up to the largest l asked for.
class BinomialCost {
 public:
  std::uint64_t cost(std::uint64_t l, std::uint64_t s) {
    if (l <= 1) return 0;
    if (s + 1 >= l) return l - 1;
    const std::vector<std::uint64_t>& beta = table(s, l);
    // t: the least with beta(s, t) >= l.
    const auto t = std::uint64_t(std::lower_bound(beta.begin(), beta.end(), l) - beta.begin());
    // C(s + t, s + 1) = C(s + t, s) t / (s + 1), exactly.
    const auto next = static_cast<std::uint64_t>(uint128(beta[t]) * t / (s + 1));
    return t * l - next;
  }

  // The split m (steps to advance before the next store) minimising
  // m + P(l - m, s - 1) + P(m, s). P is convex in l (piecewise linear with slopes t
  // that grow), so the objective is convex in m: binary search on its forward difference.
  std::uint64_t best_split(std::uint64_t l, std::uint64_t s) {
    auto total = [&](std::uint64_t m) { return m + cost(l - m, s - 1) + cost(m, s); };
    std::uint64_t low = 1, high = l - 1;
    while (low < high) {
      const std::uint64_t mid = low + (high - low) / 2;
      if (total(mid + 1) >= total(mid)) high = mid;
      else low = mid + 1;
    }
    return low;
  }

 private:
  const std::vector<std::uint64_t>& table(std::uint64_t s, std::uint64_t l) {
    if (tables_.size() <= s) tables_.resize(s + 1);
    std::vector<std::uint64_t>& beta = tables_[s];
    if (beta.empty()) beta.push_back(1);
    while (beta.back() < l) {
      const std::uint64_t t = beta.size();
      beta.push_back(static_cast<std::uint64_t>(uint128(beta.back()) * (s + t) / t));
    }
    return beta;
  }

  std::vector<std::vector<std::uint64_t>> tables_;
};

class RevolveBuilder {
 public:
  // Slot 0 holds the initial state from the start; the others are free.
  RevolveBuilder(std::size_t slots, const CheckpointSink& sink) : sink_(sink), free_(slots - 1) {
    for (std::size_t i = 0; i + 1 < slots; ++i) free_[i] = slots - 1 - i;
  }

  // Reverses steps [a, b) given the state at a in `slot_a`, with `s` slots in all
  // (slot_a included). An explicit stack replaces recursion: depth can reach N.
  void reverse(std::size_t a, std::size_t b, std::size_t slot_a, std::size_t s) {
    struct Range {
      std::size_t a, b, slot, s;
    };
    std::vector<Range> pending{{a, b, slot_a, s}};
    while (!pending.empty()) {
      Range r = pending.back();
      pending.pop_back();
      if (r.b - r.a == 1) {
        bring(r.a, r.slot);
        emit(Kind::adjoint_step, r.a, r.a);
        if (r.a != 0 || r.slot != 0) release(r.slot);
        continue;
      }
      if (r.s + 1 >= r.b - r.a) {
        // Slots enough to keep every state of the range (the last one is current when
        // its adjoint runs): one sweep, then reverse. Cost l - 1, the minimum.
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
          if (i != 0 || kept_[0] != 0) release(kept_[i - r.a]);
        }
        continue;
      }
      if (r.s == 1) {
        // Only the stored state: advance from it to each step in turn, last first.
        for (std::size_t i = r.b; i-- > r.a;) {
          bring(r.a, r.slot);
          if (i > r.a) advance(r.a, i);
          emit(Kind::adjoint_step, i, i);
        }
        if (r.a != 0 || r.slot != 0) release(r.slot);
        continue;
      }
      const std::size_t m = costs_.best_split(r.b - r.a, r.s);
      bring(r.a, r.slot);
      advance(r.a, r.a + m);
      const std::size_t slot = acquire();
      emit(Kind::store, r.a + m, r.a + m, slot);
      // Later ranges first on the stack's top: [a + m, b) is reversed before [a, a + m).
      pending.push_back({r.a, r.a + m, r.slot, r.s});
      pending.push_back({r.a + m, r.b, slot, r.s - 1});
    }
  }

 private:
  void emit(Kind kind, std::size_t step, std::size_t to, std::size_t slot = 0) {
    sink_({kind, step, to, slot});
  }
  void advance(std::size_t from, std::size_t to) {
    emit(Kind::advance, from, to);
    current_ = to;
  }
  // Makes the state at `step` (kept in `slot`) current, restoring it if needed.
  void bring(std::size_t step, std::size_t slot) {
    if (current_ == step) return;
    emit(Kind::restore, step, step, slot);
    current_ = step;
  }
  std::size_t acquire() {
    if (free_.empty()) throw std::logic_error("revolve: out of slots");
    const std::size_t slot = free_.back();
    free_.pop_back();
    return slot;
  }
  void release(std::size_t slot) {
    emit(Kind::free, 0, 0, slot);
    free_.push_back(slot);
  }

  const CheckpointSink& sink_;
  BinomialCost costs_;
  std::vector<std::size_t> free_, kept_;
  std::size_t current_ = 0;
};

}  // namespace

std::uint64_t revolve_min_recomputations(std::size_t steps, std::size_t slots) {
  if (slots == 0 && steps > 1) throw std::invalid_argument("revolve needs at least one slot");
  return BinomialCost().cost(steps, slots);
}

CheckpointSchedule revolve_schedule(std::size_t steps, std::size_t slots) {
  if (slots == 0) throw std::invalid_argument("revolve needs at least one slot");
  return {steps, slots};
}

CheckpointSchedule store_all_schedule(std::size_t steps) {
  return revolve_schedule(steps, std::max<std::size_t>(steps, 1));
}

void CheckpointSchedule::generate(const CheckpointSink& sink) const {
  if (steps == 0) return;
  RevolveBuilder builder(slots, sink);
  sink({Kind::store, 0, 0, 0});
  builder.reverse(0, steps, 0, slots);
  sink({Kind::free, 0, 0, 0});
}

std::vector<CheckpointAction> CheckpointSchedule::actions() const {
  std::vector<CheckpointAction> all;
  generate([&](const CheckpointAction& action) { all.push_back(action); });
  return all;
}

std::size_t slots_for_budget(std::uint64_t budget_bytes, std::size_t state_bytes) {
  return state_bytes == 0 ? 0 : static_cast<std::size_t>(budget_bytes / state_bytes);
}

bool parse_byte_size(const std::string& text, std::uint64_t& bytes) {
  std::size_t end = 0;
  while (end < text.size() && (std::isdigit(static_cast<unsigned char>(text[end])) || text[end] == '.'))
    ++end;
  if (end == 0) return false;
  double value = 0;
  std::size_t used = 0;
  try {
    value = std::stod(text.substr(0, end), &used);
  } catch (...) {
    return false;
  }
  if (used != end) return false;  // "1.5.5"
  std::string unit = text.substr(end);
  while (!unit.empty() && unit.front() == ' ') unit.erase(unit.begin());
  const std::pair<const char*, double> units[] = {
      {"", 1},          {"B", 1},          {"kB", 1e3},      {"MB", 1e6},
      {"GB", 1e9},      {"KiB", 1024.0},   {"MiB", 1048576.0}, {"GiB", 1073741824.0}};
  for (const auto& [name, factor] : units)
    if (unit == name) {
      if (!(value * factor < 1.8e19)) return false;  // beyond 64 bits
      bytes = static_cast<std::uint64_t>(value * factor);
      return true;
    }
  return false;
}

}  // namespace backsweep
