// Large stores recycled between gradients: the last large block freed serves the next
// request of about its size (so its pages are not zeroed again), and nothing else.
#include "solvers/recycled_memory.hpp"

#include <doctest/doctest.h>

#include <cstring>
#include <thread>
#include <vector>

using namespace backsweep;

namespace {
constexpr std::size_t kMiB = std::size_t{1} << 20;
}

TEST_CASE("the last large block freed serves the next request of about its size, once") {
  release_recycled_memory();
  void* first = allocate_recyclable(30 * kMiB);
  std::memset(first, 1, 30 * kMiB);  // its pages are mapped now
  deallocate_recyclable(first, 30 * kMiB);
  void* again = allocate_recyclable(30 * kMiB);
  CHECK(again == first);
  void* other = allocate_recyclable(30 * kMiB);  // the block is lent: a new one
  CHECK(other != first);
  deallocate_recyclable(other, 30 * kMiB);
  deallocate_recyclable(again, 30 * kMiB);  // kept now; `other` went back to the system

  // A smaller request within half of it takes it; freed, it keeps its true size.
  void* smaller = allocate_recyclable(20 * kMiB);
  CHECK(smaller == first);
  deallocate_recyclable(smaller, 20 * kMiB);
  void* near_full = allocate_recyclable(29 * kMiB);
  CHECK(near_full == first);
  deallocate_recyclable(near_full, 29 * kMiB);

  // Too large: a block of its own, while the kept one is still lent out.
  void* lent = allocate_recyclable(30 * kMiB);
  void* larger = allocate_recyclable(40 * kMiB);
  CHECK(lent == first);
  CHECK(larger != first);
  deallocate_recyclable(larger, 40 * kMiB);
  deallocate_recyclable(lent, 30 * kMiB);
  release_recycled_memory();
}

TEST_CASE("small blocks come from the heap; vectors and threads use it safely") {
  void* small = allocate_recyclable(1024);
  deallocate_recyclable(small, 1024);
  deallocate_recyclable(nullptr, 64 * kMiB);
  const auto churn = [] {
    for (int k = 0; k < 20; ++k) {
      std::vector<double, RecyclingAllocator<double>> store(3 * kMiB);  // 24 MiB
      store.back() = double(k);
      CHECK(store.back() == double(k));
    }
  };
  std::thread a(churn), b(churn);
  a.join();
  b.join();
  release_recycled_memory();
}
