#include "adjoint/checkpoint_schedule.hpp"

#include <doctest/doctest.h>

#include <array>
#include <cstdint>

#include "adjoint/schedule_executor.hpp"

using namespace backsweep;

namespace {

// A backend with no numerics: it only checks that every state it is asked for is the
// one it holds, by tracking which step each slot and the current state stand for, and it
// ends the forward sweep at `steps` for schedules that learn N that way. (Plain checks,
// not doctest assertions: there are tens of millions of calls.)
struct TrackingBackend {
  std::array<std::vector<std::size_t>, kLevels> slots;
  std::size_t current = 0, steps = 0;
  std::size_t adjoints = 0;
  bool consistent = true;
  explicit TrackingBackend(std::array<std::size_t, kLevels> capacity, std::size_t n = 0)
      : slots{std::vector<std::size_t>(capacity[0], SIZE_MAX),
              std::vector<std::size_t>(capacity[1], SIZE_MAX)},
        steps(n) {}
  ~TrackingBackend() { CHECK(consistent); }
  void advance(std::size_t from, std::size_t to) {
    consistent &= current == from && (steps == 0 || to <= steps);
    current = to;
  }
  void store(std::size_t slot, Level level, std::size_t step) {
    consistent &= current == step;
    slots[std::size_t(level)][slot] = step;
  }
  void restore(std::size_t slot, Level level, std::size_t step) {
    consistent &= slots[std::size_t(level)][slot] == step;
    current = step;
  }
  void adjoint_step(std::size_t n) {
    consistent &= current == n;
    ++adjoints;
  }
  bool at_end() const { return current == steps; }
};

// The Griewank-Walther minimum straight from its definition (independent of the
// library's closed form): t least with C(s + t, s) >= N, count t N - C(s + t, s + 1).
std::uint64_t griewank_walther(std::uint64_t n, std::uint64_t s) {
  if (s + 1 >= n) return n - 1;
  auto binomial = [](std::uint64_t a, std::uint64_t b) {
    long double r = 1;
    for (std::uint64_t i = 1; i <= b; ++i) r = r * (a - b + i) / i;
    return static_cast<std::uint64_t>(r + 0.5L);
  };
  std::uint64_t t = 0;
  while (binomial(s + t, s) < n) ++t;
  return t * n - binomial(s + t, s + 1);
}

ScheduleCounts run(CheckpointSchedule& schedule, std::size_t n) {
  TrackingBackend backend(schedule.slots(), n);
  const ScheduleCounts counts = execute_schedule(schedule, backend);
  CHECK(backend.adjoints == n);
  return counts;
}
ScheduleCounts run(std::size_t n, std::size_t s) { return run(*revolve_schedule(n, s), n); }

}  // namespace

TEST_CASE("revolve reaches the Griewank-Walther minimum for every N <= 300 and s <= N") {
  std::size_t mismatches = 0;
  for (std::size_t n = 1; n <= 300; ++n) {
    for (std::size_t s = 1; s <= n; ++s) {
      const auto schedule = revolve_schedule(n, s);
      TrackingBackend backend(schedule->slots());
      const ScheduleCounts counts = execute_schedule(*schedule, backend);
      const bool right = counts.forward_steps == griewank_walther(n, s) &&
                         counts.forward_steps == revolve_min_recomputations(n, s) &&
                         counts.recomputed_steps == counts.forward_steps - (n - 1) &&
                         counts.peak_slots <= s && counts.adjoint_steps == n;
      if (!right && ++mismatches <= 5) {
        CAPTURE(n);
        CAPTURE(s);
        CHECK(counts.forward_steps == griewank_walther(n, s));
        CHECK(counts.peak_slots <= s);
      }
    }
  }
  CHECK(mismatches == 0);
}

TEST_CASE("revolve reaches the minimum for long runs") {
  for (std::size_t n : {10'000u, 100'000u}) {
    for (std::size_t s : {1u, 2u, 3u, 10u, 100u, 1000u}) {
      CAPTURE(n);
      CAPTURE(s);
      const ScheduleCounts counts = run(n, s);
      CHECK(counts.forward_steps == griewank_walther(n, s));
      CHECK(counts.peak_slots <= s);
    }
  }
}

TEST_CASE("store-all takes N - 1 forward steps, none again, and keeps N - 1 states") {
  const auto schedule = store_all_schedule(50);
  TrackingBackend backend(schedule->slots());
  const ScheduleCounts counts = execute_schedule(*schedule, backend);
  CHECK(counts.forward_steps == 49);
  CHECK(counts.recomputed_steps == 0);
  CHECK(counts.peak_slots == 49);  // the last state is current when its adjoint runs
}

TEST_CASE("a schedule's actions can be listed") {
  const auto actions = all_actions(*revolve_schedule(3, 2));
  using Kind = CheckpointAction::Kind;
  REQUIRE(actions.size() >= 5);
  CHECK(actions.front().kind == Kind::store);
  CHECK(actions.back().kind == Kind::free);
  std::size_t adjoints = 0;
  for (const auto& action : actions) adjoints += action.kind == Kind::adjoint_step;
  CHECK(adjoints == 3);
}

TEST_CASE("memory budgets convert to slots") {
  std::uint64_t bytes = 0;
  CHECK(parse_byte_size("64MiB", bytes));
  CHECK(bytes == 64ull << 20);
  CHECK(parse_byte_size("2GiB", bytes));
  CHECK(bytes == 2ull << 30);
  CHECK(parse_byte_size("1000", bytes));
  CHECK(bytes == 1000);
  CHECK_FALSE(parse_byte_size("lots", bytes));
  CHECK_FALSE(parse_byte_size("5 parsecs", bytes));
  CHECK(slots_for_budget(64ull << 20, 3 * sizeof(double)) == (64ull << 20) / 24);
}

TEST_CASE("online checkpointing: within 1.2x of the offline minimum, learning N as it goes") {
  // The schedule never knows N: the backend ends the forward sweep. Its count includes
  // the last forward step, which offline revolve takes inside that step's adjoint. For N
  // just above s the forward sweep must keep a state more than N needed: one extra step,
  // which weighs most when there are few slots.
  double worst = 0, worst_two = 0;
  std::size_t worst_n = 0, worst_s = 0;
  auto ratio_at = [](std::size_t n, std::size_t s) {
    const auto schedule = online_schedule(s);
    const ScheduleCounts counts = run(*schedule, n);
    CHECK(counts.peak_slots <= s);
    CHECK(schedule->steps() == n);
    return double(counts.forward_steps - 1) / double(revolve_min_recomputations(n, s));
  };
  for (std::size_t s : {2u, 3u, 4u, 5u, 8u, 13u, 20u, 32u, 50u}) {
    for (std::size_t n = s + 2; n <= 2000; n += 1 + n / 40) {
      const double ratio = ratio_at(n, s);
      if (s == 2) worst_two = std::max(worst_two, ratio);
      else if (ratio > worst) worst = ratio, worst_n = n, worst_s = s;
    }
  }
  for (std::size_t n : {20'000u, 100'000u})
    for (std::size_t s : {10u, 50u}) worst = std::max(worst, ratio_at(n, s));
  MESSAGE("online / offline recomputations, worst with s >= 3: " << worst << " (N = " << worst_n
          << ", s = " << worst_s << "); with s = 2: " << worst_two);
  CHECK(worst <= 1.2);
  CHECK(worst_two <= 1.3);  // one free slot: the forward sweep keeps one state too many
}

TEST_CASE("online checkpointing with ample slots keeps every state: one forward sweep, nothing again") {
  const auto schedule = online_schedule(60);
  const ScheduleCounts counts = run(*schedule, 50);
  CHECK(counts.forward_steps - 1 == 49);
  CHECK(counts.recomputed_steps == 0);
  CHECK(counts.writes[0] == 50);
}

TEST_CASE("two levels: disk checkpoints written once, memory for the rest") {
  for (std::size_t n : {1u, 2u, 7u, 100u, 1000u}) {
    for (std::size_t memory : {1u, 2u, 3u}) {
      for (std::size_t disk : {0u, 1u, 5u, 40u, 5000u}) {
        CAPTURE(n);
        CAPTURE(memory);
        CAPTURE(disk);
        const auto schedule = two_level_schedule(n, memory, disk);
        const ScheduleCounts counts = run(*schedule, n);
        CHECK(counts.peak_level_slots[0] <= memory);
        CHECK(counts.peak_level_slots[1] <= disk);
        CHECK(counts.writes[1] == std::min(disk, n > 1 ? n - 1 : 0));
        // More disk slots never cost more recomputation, and with one per step it is
        // store-all.
        if (disk >= n) CHECK(counts.forward_steps == (n > 0 ? n - 1 : 0));
        if (disk >= n) CHECK(counts.recomputed_steps == 0);
      }
    }
  }
}
