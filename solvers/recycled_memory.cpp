#include "solvers/recycled_memory.hpp"

#include <mutex>
#include <new>

namespace backsweep {
namespace {

struct Block {
  void* start = nullptr;
  std::size_t bytes = 0;
};

std::mutex guard;
Block kept;     // freed, waiting for a store of about its size
Block lent;     // handed out from `kept` for a smaller request: its true size
}  // namespace

void* allocate_recyclable(std::size_t bytes) {
  if (bytes < kRecycledBytes) return ::operator new(bytes);
  Block stale;
  {
    const std::lock_guard lock(guard);
    if (kept.start && kept.bytes >= bytes && kept.bytes / 2 <= bytes) {
      if (kept.bytes != bytes) lent = kept;
      void* const start = kept.start;
      kept = {};
      return start;
    }
    stale = kept;  // too small or too large: it goes, so no more than one block is held
    kept = {};
  }
  ::operator delete(stale.start);
  return ::operator new(bytes);
}

void deallocate_recyclable(void* block, std::size_t bytes) {
  if (!block) return;
  if (bytes < kRecycledBytes) return ::operator delete(block);
  Block stale;
  {
    const std::lock_guard lock(guard);
    if (block == lent.start) {
      bytes = lent.bytes;
      lent = {};
    }
    stale = kept;
    kept = {block, bytes};
  }
  ::operator delete(stale.start);
}

void release_recycled_memory() {
  Block stale;
  {
    const std::lock_guard lock(guard);
    stale = kept;
    kept = {};
  }
  ::operator delete(stale.start);
}

}  // namespace backsweep
