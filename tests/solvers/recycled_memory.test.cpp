// Large stores recycled between gradients: the last large block freed serves the next
// request of about its size (so its pages are not zeroed again), and nothing else; a
// fresh one has its pages mapped by a helper thread.
#include "solvers/recycled_memory.hpp"

#include <doctest/doctest.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#include "solvers/context.hpp"

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

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

TEST_CASE("a context's pool keeps its own block, apart from the default one") {
  release_recycled_memory();
  Context context;
  MemoryPool& own = context.memory();
  void* block = own.allocate(30 * kMiB);
  own.deallocate(block, 30 * kMiB);
  CHECK(own.kept_bytes() == 30 * kMiB);
  CHECK(default_memory_pool().kept_bytes() == 0);
  void* other = allocate_recyclable(30 * kMiB);  // the default pool has none to give
  CHECK(other != block);
  deallocate_recyclable(other, 30 * kMiB);
  CHECK(own.allocate(30 * kMiB) == block);
  // A vector drawing on the context's pool returns its block there.
  own.deallocate(block, 30 * kMiB);
  {
    std::vector<double, RecyclingAllocator<double>> store(4 * kMiB, 0.0, RecyclingAllocator<double>(own));
    CHECK(store.get_allocator().pool == &own);  // 32 MiB: more than the kept block, which goes
  }
  CHECK(own.kept_bytes() == 32 * kMiB);
  CHECK(default_memory_pool().kept_bytes() == 30 * kMiB);
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

#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
namespace {
// Pages of [start, start + bytes) not mapped yet (mincore on the whole pages inside).
std::size_t unmapped_pages(void* start, std::size_t bytes) {
  const std::uintptr_t page = std::uintptr_t(sysconf(_SC_PAGESIZE));
  const std::uintptr_t begin = (std::uintptr_t(start) + page - 1) & ~(page - 1);
  const std::uintptr_t end = (std::uintptr_t(start) + bytes) & ~(page - 1);
  std::vector<unsigned char> resident((end - begin) / page);
  REQUIRE(mincore(reinterpret_cast<void*>(begin), end - begin, resident.data()) == 0);
  std::size_t unmapped = 0;
  for (unsigned char r : resident) unmapped += (r & 1) ? 0 : 1;
  return unmapped;
}

bool kernel_populates() {
  void* probe = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (probe == MAP_FAILED) return false;  // asked before any test runs: no REQUIRE here
  const bool ok = madvise(probe, 4096, MADV_POPULATE_WRITE) == 0;
  munmap(probe, 4096);
  return ok;
}

// Polls until done(unmapped pages) or 20 s have passed.
template <class Done>
bool wait_for(void* block, std::size_t bytes, Done done) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!done(unmapped_pages(block, bytes)))
    if (std::chrono::steady_clock::now() > deadline) return false;
  return true;
}
}  // namespace

// Skipped (and said so) on a kernel without MADV_POPULATE_WRITE (Linux < 5.14), where the
// writer maps its own pages.
TEST_CASE("map_ahead maps a large block's pages on a helper thread" * doctest::skip(!kernel_populates())) {
  release_recycled_memory();
  const std::size_t bytes = 64 * kMiB;
  void* block = allocate_recyclable(bytes);
  CHECK(unmapped_pages(block, bytes) > 0);  // operator new maps nothing
  map_ahead(block, bytes);
  CHECK(wait_for(block, bytes, [](std::size_t unmapped) { return unmapped == 0; }));  // nothing here wrote
  deallocate_recyclable(block, bytes);
  release_recycled_memory();

  // Freed while its helper is at work (some pages mapped, not all): the helper stops, and
  // is joined, before the block goes back to the system.
  const std::size_t large = 2048 * kMiB;
  void* busy = allocate_recyclable(large);
  const std::size_t all = unmapped_pages(busy, large);
  map_ahead(busy, large);
  CHECK(wait_for(busy, large, [&](std::size_t unmapped) { return unmapped < all; }));
  const bool midway = unmapped_pages(busy, large) > 0;
  deallocate_recyclable(busy, large);
  release_recycled_memory();
  if (!midway) MESSAGE("the helper mapped all 2 GiB before the block was freed");
}
#endif
