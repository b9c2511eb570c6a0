#pragma once
// Large checkpoint stores, recycled between gradients. A store-all gradient writes every
// step's record into fresh memory, and the kernel zeroes each fresh page before handing
// it over: half the time of an RK4 gradient of Gray-Scott at 256^2 (perf: clear_page_erms).
// The last large block freed is kept and serves the next store of about its size, so
// repeated gradients (a fit's iterations, an ensemble's members, a benchmark's runs)
// write into pages already mapped, as CVODES keeps its checkpoint memory from one CVodeF
// to the next. One block is kept at most, never more than twice the request it serves;
// release_recycled_memory() returns it to the system.
// A fresh block has its pages mapped by a helper thread, ahead of the store that fills
// it, so that a first gradient pays for them on the second core beside its forward solve
// rather than in it.
#include <cstddef>

namespace backsweep {

// Blocks below this come from the heap as usual (malloc keeps those mapped itself).
inline constexpr std::size_t kRecycledBytes = std::size_t{16} << 20;

void* allocate_recyclable(std::size_t bytes);
void deallocate_recyclable(void* block, std::size_t bytes);
void release_recycled_memory();

template <class U>
struct RecyclingAllocator {
  using value_type = U;
  RecyclingAllocator() = default;
  template <class V>
  RecyclingAllocator(const RecyclingAllocator<V>&) {}
  U* allocate(std::size_t n) { return static_cast<U*>(allocate_recyclable(n * sizeof(U))); }
  void deallocate(U* block, std::size_t n) { deallocate_recyclable(block, n * sizeof(U)); }
  friend bool operator==(const RecyclingAllocator&, const RecyclingAllocator&) { return true; }
};

}  // namespace backsweep
