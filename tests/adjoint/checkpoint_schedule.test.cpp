#include "adjoint/checkpoint_schedule.hpp"

#include <doctest/doctest.h>

#include <cstdint>

#include "adjoint/schedule_executor.hpp"

using namespace backsweep;

namespace {

// A backend with no numerics: it only checks that every state it is asked for is the
// one it holds, by tracking which step each slot and the current state stand for.
// (Plain checks, not doctest assertions: there are tens of millions of calls.)
struct TrackingBackend {
  std::vector<std::size_t> slots;
  std::size_t current = 0;
  std::size_t adjoints = 0;
  bool consistent = true;
  explicit TrackingBackend(std::size_t s) : slots(s, SIZE_MAX) {}
  ~TrackingBackend() { CHECK(consistent); }
  void advance(std::size_t from, std::size_t to) {
    consistent &= current == from;
    current = to;
  }
  void store(std::size_t slot, std::size_t step) {
    consistent &= current == step;
    slots[slot] = step;
  }
  void restore(std::size_t slot, std::size_t step) {
    consistent &= slots[slot] == step;
    current = step;
  }
  void adjoint_step(std::size_t n) {
    consistent &= current == n;
    ++adjoints;
  }
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

ScheduleCounts run(std::size_t n, std::size_t s) {
  const CheckpointSchedule schedule = revolve_schedule(n, s);
  TrackingBackend backend(s);
  const ScheduleCounts counts = execute_schedule(schedule, backend);
  CHECK(backend.adjoints == n);
  return counts;
}

}  // namespace

TEST_CASE("revolve reaches the Griewank-Walther minimum for every N <= 300 and s <= N") {
  std::size_t mismatches = 0;
  for (std::size_t n = 1; n <= 300; ++n) {
    for (std::size_t s = 1; s <= n; ++s) {
      const CheckpointSchedule schedule = revolve_schedule(n, s);
      TrackingBackend backend(s);
      const ScheduleCounts counts = execute_schedule(schedule, backend);
      const bool right = counts.recomputed_steps == griewank_walther(n, s) &&
                         counts.recomputed_steps == revolve_min_recomputations(n, s) &&
                         counts.peak_slots <= s && counts.adjoint_steps == n;
      if (!right && ++mismatches <= 5) {
        CAPTURE(n);
        CAPTURE(s);
        CHECK(counts.recomputed_steps == griewank_walther(n, s));
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
      CHECK(counts.recomputed_steps == griewank_walther(n, s));
      CHECK(counts.peak_slots <= s);
    }
  }
}

TEST_CASE("store-all takes N - 1 forward steps and keeps N - 1 states") {
  const CheckpointSchedule schedule = store_all_schedule(50);
  TrackingBackend backend(schedule.slots);
  const ScheduleCounts counts = execute_schedule(schedule, backend);
  CHECK(counts.recomputed_steps == 49);
  CHECK(counts.peak_slots == 49);  // the last state is current when its adjoint runs
}

TEST_CASE("a schedule's actions can be listed") {
  const auto actions = revolve_schedule(3, 2).actions();
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
