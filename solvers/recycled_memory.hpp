#pragma once
// Large checkpoint stores, recycled between gradients. A store-all gradient writes every
// step's record into fresh memory, and the kernel zeroes each fresh page before handing
// it over: half the time of an RK4 gradient of Gray-Scott at 256^2 (perf: clear_page_erms).
// A MemoryPool keeps the last large block freed to it and serves the next store of about
// its size from it, so repeated gradients (a fit's iterations, an ensemble's members, a
// benchmark's runs) write into pages already mapped, as CVODES keeps its checkpoint
// memory from one CVodeF to the next. One block is kept at most, never more than twice
// the request it serves; release() returns it to the system.
// map_ahead() has a helper thread map a store's pages ahead of the writer that fills
// them, so that a first gradient pays for them on another core beside its forward solve
// rather than in it.
// A pool belongs to a Context (context.hpp); the free functions below use the default
// context's.
#include <cstddef>
#include <memory>
#include <type_traits>

namespace backsweep {

// Blocks below this come from the heap as usual (malloc keeps those mapped itself).
inline constexpr std::size_t kRecycledBytes = std::size_t{16} << 20;

class MemoryPool {
 public:
  MemoryPool();
  // Stops its helpers and returns its kept block. The blocks it lent must be back.
  ~MemoryPool();
  MemoryPool(const MemoryPool&) = delete;
  MemoryPool& operator=(const MemoryPool&) = delete;

  void* allocate(std::size_t bytes);
  void deallocate(void* block, std::size_t bytes);
  void release();
  std::size_t kept_bytes() const;  // the block waiting for its next store (0: none)
  // For a block from allocate() that will be written whole, front to back (a store of
  // known size: not one that doubles as it grows, whose spare half would be mapped for
  // nothing). Returns at once; does nothing for small blocks or where the kernel cannot.
  void map_ahead(void* block, std::size_t bytes);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// default_context()'s (context.hpp).
MemoryPool& default_memory_pool();

inline void* allocate_recyclable(std::size_t bytes) { return default_memory_pool().allocate(bytes); }
inline void deallocate_recyclable(void* block, std::size_t bytes) { default_memory_pool().deallocate(block, bytes); }
inline void release_recycled_memory() { default_memory_pool().release(); }
inline void map_ahead(void* block, std::size_t bytes) { default_memory_pool().map_ahead(block, bytes); }

// Draws on a pool (the default one unless given): vectors of large stores.
template <class U>
struct RecyclingAllocator {
  using value_type = U;
  using propagate_on_container_move_assignment = std::true_type;
  using propagate_on_container_swap = std::true_type;
  RecyclingAllocator() : pool(&default_memory_pool()) {}
  explicit RecyclingAllocator(MemoryPool& from) : pool(&from) {}
  template <class V>
  RecyclingAllocator(const RecyclingAllocator<V>& other) : pool(other.pool) {}
  U* allocate(std::size_t n) { return static_cast<U*>(pool->allocate(n * sizeof(U))); }
  void deallocate(U* block, std::size_t n) { pool->deallocate(block, n * sizeof(U)); }
  friend bool operator==(const RecyclingAllocator& a, const RecyclingAllocator& b) { return a.pool == b.pool; }

  MemoryPool* pool;
};

}  // namespace backsweep
