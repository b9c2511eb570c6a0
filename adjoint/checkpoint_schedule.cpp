#include "adjoint/checkpoint_schedule.hpp"

#include <algorithm>
#include <cctype>
#include <stdexcept>
#include <utility>

#include "adjoint/detail/binomial_cost.hpp"
#include "adjoint/revolve_generator.hpp"

namespace backsweep {

namespace {

using Kind = CheckpointAction::Kind;

// Offline revolve: the initial state into memory slot 0, then the optimal reversal of
// [0, N) with every slot.
class Revolve final : public CheckpointSchedule {
 public:
  Revolve(std::size_t steps, std::size_t slots)
      : steps_(steps), slots_(slots), free_(slots - 1),
        generator_(0, steps, {0, Level::memory}, slots, free_, costs_, true) {
    for (std::size_t i = 0; i + 1 < slots; ++i) free_[i] = slots - 1 - i;  // slot 1 first
  }
  std::optional<CheckpointAction> next(const ScheduleState& state) override {
    if (steps_ == 0) return std::nullopt;
    if (!stored_initial_) {
      stored_initial_ = true;
      return CheckpointAction{Kind::store, 0, 0, 0, Level::memory};
    }
    return generator_.next(state.current);
  }
  std::array<std::size_t, kLevels> slots() const override { return {slots_, 0}; }
  std::size_t steps() const override { return steps_; }
  std::string name() const override { return "revolve"; }

 private:
  std::size_t steps_, slots_;
  std::vector<std::size_t> free_;
  detail::BinomialCost costs_;
  detail::RevolveGenerator generator_;
  bool stored_initial_ = false;
};

}  // namespace

const char* to_string(Level level) { return level == Level::memory ? "memory" : "disk"; }

std::unique_ptr<CheckpointSchedule> revolve_schedule(std::size_t steps, std::size_t slots) {
  if (slots == 0) throw std::invalid_argument("revolve needs at least one slot");
  return std::make_unique<Revolve>(steps, slots);
}

std::unique_ptr<CheckpointSchedule> store_all_schedule(std::size_t steps) {
  return revolve_schedule(steps, std::max<std::size_t>(steps, 1));
}

std::vector<CheckpointAction> all_actions(CheckpointSchedule& schedule) {
  std::vector<CheckpointAction> actions;
  ScheduleState state;
  while (const auto action = schedule.next(state)) {
    if (action->kind == Kind::advance) state.current = action->to;
    if (action->kind == Kind::restore) state.current = action->step;
    actions.push_back(*action);
  }
  return actions;
}

std::uint64_t revolve_min_recomputations(std::size_t steps, std::size_t slots) {
  if (slots == 0 && steps > 1) throw std::invalid_argument("revolve needs at least one slot");
  return detail::BinomialCost().cost(steps, slots);
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

std::string format_byte_size(std::uint64_t bytes) {
  const std::pair<const char*, std::uint64_t> units[] = {
      {"GiB", std::uint64_t(1) << 30}, {"MiB", std::uint64_t(1) << 20}, {"KiB", 1024}};
  for (const auto& [name, factor] : units)
    if (bytes >= factor) return std::to_string((bytes + factor - 1) / factor) + name;
  return std::to_string(bytes) + "B";
}

}  // namespace backsweep
