#pragma once
// Large checkpoint stores, recycled between gradients. A store-all gradient writes every
// step's record into fresh memory, and the kernel zeroes each fresh page before handing
// it over: half the time of an RK4 gradient of Gray-Scott at 256^2 (perf: clear_page_erms).
// The last large block freed is kept and serves the next store of about its size, so
// repeated gradients (a fit's iterations, an ensemble's members, a benchmark's runs)
// write into pages already mapped, as CVODES keeps its checkpoint memory from one CVodeF
// to the next. One block is kept at most, never more than twice the request it serves;
// release_recycled_memory() returns it to the system.
// map_ahead() has a helper thread map a store's pages ahead of the writer that fills
// them, so that a first gradient pays for them on another core beside its forward solve
// rather than in it.
#include <cstddef>

namespace backsweep {

// Blocks below this come from the heap as usual (malloc keeps those mapped itself).
inline constexpr std::size_t kRecycledBytes = std::size_t{16} << 20;

void* allocate_recyclable(std::size_t bytes);
void deallocate_recyclable(void* block, std::size_t bytes);
void release_recycled_memory();
// For a block from allocate_recyclable that will be written whole, front to back (a store
// of known size: not one that doubles as it grows, whose spare half would be mapped for
// nothing). Returns at once; does nothing for small blocks or where the kernel cannot.
void map_ahead(void* block, std::size_t bytes);

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
