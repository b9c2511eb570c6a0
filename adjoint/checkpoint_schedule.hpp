#pragma once
// Checkpoint schedules as data: a schedule is the list of actions that reverses N steps
// with a bounded number of state slots. It holds no numerics; ScheduleExecutor runs it
// against any backend. Convention (Griewank-Walther): the initial state occupies one of
// the slots; the forward step inside a step's own adjoint is not counted, every other
// forward step is (the first forward sweep included).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace backsweep {

struct CheckpointAction {
  enum class Kind {
    advance,       // step the current state forward from `step` to `to`
    store,         // copy the current state (at `step`) into `slot`
    restore,       // make the state in `slot` (at `step`) the current one
    adjoint_step,  // reverse step `step` -> `step` - ... : needs the current state at `step`
    free,          // `slot` is no longer needed
  };
  Kind kind;
  std::size_t step = 0, to = 0;
  std::size_t slot = 0;
};

using CheckpointSink = std::function<void(const CheckpointAction&)>;

// A schedule is generated action by action, on demand: holding all of them would cost
// more memory than the states it saves.
struct CheckpointSchedule {
  std::size_t steps = 0, slots = 0;
  void generate(const CheckpointSink& sink) const;
  std::vector<CheckpointAction> actions() const;  // all at once, for inspection
};

// Every state kept: N - 1 forward steps, N - 1 states held (y_0 ... y_{N-2}). (gradient()
// keeps every step in its own forward solve instead; this is the schedule's reference.)
CheckpointSchedule store_all_schedule(std::size_t steps);

// Offline binomial checkpointing (revolve) with `slots` >= 1 slots: reaches the
// Griewank-Walther minimum of recomputed forward steps exactly.
CheckpointSchedule revolve_schedule(std::size_t steps, std::size_t slots);

// That minimum: with t the least integer such that C(s + t, s) >= N, it is
// t N - C(s + t, s + 1) (N - 1 when s >= N - 1).
std::uint64_t revolve_min_recomputations(std::size_t steps, std::size_t slots);

// How many state slots of `state_bytes` each fit in a memory budget of `budget_bytes`.
std::size_t slots_for_budget(std::uint64_t budget_bytes, std::size_t state_bytes);

// Parses a size like "64MiB", "2GiB", "512kB", "1000" (bytes); false if malformed.
bool parse_byte_size(const std::string& text, std::uint64_t& bytes);

}  // namespace backsweep
