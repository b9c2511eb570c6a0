#include "solvers/recycled_memory.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <new>
#include <system_error>
#include <thread>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace backsweep {
namespace {

struct Block {
  void* start = nullptr;
  std::size_t bytes = 0;
};

// A helper thread that maps a fresh block's pages ahead of the writer; stopped and joined
// before the block goes back to the system (or at exit, for a block still held).
struct Populator {
  void* start = nullptr;
  std::atomic<bool> stop{false};
  std::thread thread;
  ~Populator() {
    stop = true;
    if (thread.joinable()) thread.join();
  }
};

std::mutex guard;
Block kept;     // freed, waiting for a store of about its size
Block lent;     // handed out from `kept` for a smaller request: its true size
std::vector<std::unique_ptr<Populator>> populators;  // one per fresh block still mapped

// Maps the block's pages writable, a chunk at a time, front to back as a store fills
// them, until done, stopped, or refused (a kernel before 5.14 has no MADV_POPULATE_WRITE:
// the writer then faults its pages in itself). Not huge pages: where a virtual machine's
// host has taken freed memory back, a 2 MiB page costs more to map again than 512 small
// ones, and compacting memory for one can stall the writer.
void populate(void* start, std::size_t bytes, const std::atomic<bool>& stop) {
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
  constexpr std::uintptr_t kPage = 4096, kChunk = std::uintptr_t{32} << 20;
  std::uintptr_t begin = (std::uintptr_t(start) + kPage - 1) & ~(kPage - 1);
  const std::uintptr_t end = (std::uintptr_t(start) + bytes) & ~(kPage - 1);
  for (; begin < end && !stop.load(std::memory_order_relaxed); begin += kChunk)
    if (madvise(reinterpret_cast<void*>(begin), std::min(kChunk, end - begin), MADV_POPULATE_WRITE) != 0)
      return;
#else
  (void)start, (void)bytes, (void)stop;
#endif
}

void* allocate_fresh(std::size_t bytes) {
  void* const start = ::operator new(bytes);
  auto populator = std::make_unique<Populator>();
  populator->start = start;
  try {
    populator->thread = std::thread(populate, start, bytes, std::cref(populator->stop));
  } catch (const std::system_error&) {
    return start;  // no thread to spare: the writer faults its pages in itself
  }
  const std::lock_guard lock(guard);
  populators.push_back(std::move(populator));
  return start;
}

// Returns a block to the system, once its populator (if any) has stopped touching it.
void free_block(void* start) {
  if (!start) return;
  std::unique_ptr<Populator> populator;
  {
    const std::lock_guard lock(guard);
    const auto found = std::find_if(populators.begin(), populators.end(),
                                    [&](const auto& entry) { return entry->start == start; });
    if (found != populators.end()) {
      populator = std::move(*found);
      populators.erase(found);
    }
  }
  populator.reset();
  ::operator delete(start);
}

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
  free_block(stale.start);
  return allocate_fresh(bytes);
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
  free_block(stale.start);
}

void release_recycled_memory() {
  Block stale;
  {
    const std::lock_guard lock(guard);
    stale = kept;
    kept = {};
  }
  free_block(stale.start);
}

}  // namespace backsweep
