#pragma once
// Checkpoint schedules as data: a schedule answers "what next?" with actions that reverse
// N steps with a bounded number of state slots. It holds no numerics; the executor
// (schedule_executor.hpp) runs it against any backend, and the backend's store owns the
// slots. Convention (Griewank-Walther): the initial state occupies one of the slots; the
// forward step inside a step's own adjoint is not counted, every other forward step is
// (the first forward sweep included).
//
//   revolve    offline binomial checkpointing for a known N: the Griewank-Walther minimum
//              of recomputed steps, exactly;
//   online     for an N learnt only when the forward sweep ends (adaptive steps): it keeps
//              at most s states as it goes, then reverses between them optimally;
//   two_level  memory slots and disk slots: disk checkpoints split the run into segments,
//              each reversed from its disk checkpoint with the memory slots.
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace backsweep {

// Where a slot lives. The memory level holds the initial state.
enum class Level : std::uint8_t { memory, disk };
inline constexpr std::size_t kLevels = 2;
const char* to_string(Level level);

// A slot: which, on which level.
struct SlotRef {
  std::size_t index = 0;
  Level level = Level::memory;
  bool operator==(const SlotRef&) const = default;
};

struct CheckpointAction {
  enum class Kind {
    advance,       // step the current state forward from `step` to `to`
    store,         // copy the current state (at `step`) into (`slot`, `level`)
    restore,       // make the state in (`slot`, `level`) (at `step`) the current one
    adjoint_step,  // reverse step `step`: needs the current state at `step`
    free,          // (`slot`, `level`) is no longer needed
  };
  Kind kind;
  std::size_t step = 0, to = 0;
  std::size_t slot = 0;
  Level level = Level::memory;
};

// What the executor tells a schedule when it asks for the next action.
struct ScheduleState {
  std::size_t current = 0;  // the step of the current state
  bool at_end = false;      // the current state is the last one: the forward sweep ended
};

class CheckpointSchedule {
 public:
  virtual ~CheckpointSchedule() = default;
  // The next action; nothing when every step has been reversed.
  virtual std::optional<CheckpointAction> next(const ScheduleState& state) = 0;
  // The slots it may use on each level.
  virtual std::array<std::size_t, kLevels> slots() const = 0;
  // N, or 0 while the schedule does not know it (online, before the forward sweep ends).
  virtual std::size_t steps() const = 0;
  virtual std::string name() const = 0;
};

// Offline binomial checkpointing (revolve) with `slots` >= 1 slots.
std::unique_ptr<CheckpointSchedule> revolve_schedule(std::size_t steps, std::size_t slots);

// Every state kept: revolve with as many slots as steps (N - 1 forward steps, N - 1 states
// held: y_0 ... y_{N-2}; the last is current when its adjoint runs).
std::unique_ptr<CheckpointSchedule> store_all_schedule(std::size_t steps);

// Online checkpointing with `slots` >= 1 slots, for a number of steps the forward sweep
// finds out: it advances one step at a time until the executor reports the end.
std::unique_ptr<CheckpointSchedule> online_schedule(std::size_t slots);

// Two levels: `disk_slots` checkpoints on disk written by the first sweep at even
// intervals, each segment then reversed from its disk checkpoint with `memory_slots`
// memory slots (>= 1). The initial state stays in memory.
std::unique_ptr<CheckpointSchedule> two_level_schedule(std::size_t steps,
                                                       std::size_t memory_slots,
                                                       std::size_t disk_slots);

// The recomputations two_level_schedule(steps, memory_slots, disk_slots) takes.
std::uint64_t two_level_recomputations(std::size_t steps, std::size_t memory_slots,
                                       std::size_t disk_slots);

// All actions of a schedule whose N is known, for inspection (the executor's state is
// followed as it would be).
std::vector<CheckpointAction> all_actions(CheckpointSchedule& schedule);

// The Griewank-Walther minimum: with t the least integer such that C(s + t, s) >= N, it
// is t N - C(s + t, s + 1) (N - 1 when s >= N - 1).
std::uint64_t revolve_min_recomputations(std::size_t steps, std::size_t slots);

// How many slots of `slot_bytes` each fit in a budget of `budget_bytes`.
std::size_t slots_for_budget(std::uint64_t budget_bytes, std::size_t slot_bytes);

// Parses a size like "64MiB", "2GiB", "512kB", "1000" (bytes); false if malformed.
bool parse_byte_size(const std::string& text, std::uint64_t& bytes);
// The smallest whole number of KiB, MiB or GiB (the largest unit that keeps it at 1 or
// more) that holds `bytes`, as "53KiB"; below 1 KiB, "100B".
std::string format_byte_size(std::uint64_t bytes);

}  // namespace backsweep
