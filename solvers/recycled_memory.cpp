#include "solvers/recycled_memory.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <memory>
#include <mutex>
#include <new>
#include <thread>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace backsweep {
namespace {

struct Block {
  void* start = nullptr;
  std::size_t bytes = 0;
};

// A helper thread mapping a block's pages ahead of its writer; stopped and joined before
// the block goes back to the system. (A child forked without exec would wait forever for
// its parent's helper there: it must not free a block its parent was mapping.)
struct Populator {
  void* start = nullptr;
  std::atomic<bool> stop{false};
  std::thread thread;
  ~Populator() {
    stop = true;
    if (thread.joinable()) thread.join();
  }
};

std::atomic<bool> kernel_refuses{false};  // no MADV_POPULATE_WRITE (Linux before 5.14)

// Maps the block's pages writable, a chunk at a time, front to back as a store fills
// them, until done or stopped. Not huge pages: where a virtual machine's host has taken
// freed memory back, a 2 MiB page costs more to map again than 512 small ones, and
// compacting memory for one can stall the writer.
void populate(void* start, std::size_t bytes, const std::atomic<bool>& stop) {
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
  const std::uintptr_t page = std::uintptr_t(sysconf(_SC_PAGESIZE)), chunk = std::uintptr_t{32} << 20;
  std::uintptr_t begin = (std::uintptr_t(start) + page - 1) & ~(page - 1);
  const std::uintptr_t end = (std::uintptr_t(start) + bytes) & ~(page - 1);
  for (; begin < end && !stop.load(std::memory_order_relaxed); begin += chunk)
    if (madvise(reinterpret_cast<void*>(begin), std::min(chunk, end - begin), MADV_POPULATE_WRITE) != 0) {
      if (errno == EINVAL) kernel_refuses = true;
      return;
    }
#else
  (void)start, (void)bytes, (void)stop;
#endif
}

}  // namespace

struct MemoryPool::State {
  std::mutex guard;
  Block kept;  // freed, waiting for a store of about its size
  Block lent;  // handed out from `kept` for a smaller request: its true size
  // One per block being mapped (or mapped, and not yet freed).
  std::vector<std::unique_ptr<Populator>> populators;

  // Where the populator of the block at `start` is in `populators` (end: none); under `guard`.
  auto populator_of(void* start) {
    return std::find_if(populators.begin(), populators.end(),
                        [&](const auto& entry) { return entry->start == start; });
  }

  // Returns a block to the system, once its populator (if any) has stopped touching it.
  void free_block(void* start) {
    if (!start) return;
    std::unique_ptr<Populator> populator;
    {
      const std::lock_guard lock(guard);
      if (const auto found = populator_of(start); found != populators.end()) {
        populator = std::move(*found);
        populators.erase(found);
      }
    }
    populator.reset();  // stops and joins
    ::operator delete(start);
  }
};

MemoryPool::MemoryPool() : state_(std::make_unique<State>()) {}

MemoryPool::~MemoryPool() {
  release();
  state_->populators.clear();  // stops and joins any helper still mapping
}

void* MemoryPool::allocate(std::size_t bytes) {
  if (bytes < kRecycledBytes) return ::operator new(bytes);
  State& s = *state_;
  Block stale;
  {
    const std::lock_guard lock(s.guard);
    if (s.kept.start && s.kept.bytes >= bytes && s.kept.bytes / 2 <= bytes) {
      if (s.kept.bytes != bytes) s.lent = s.kept;
      void* const start = s.kept.start;
      s.kept = {};
      return start;
    }
    stale = s.kept;  // too small or too large: it goes, so no more than one block is held
    s.kept = {};
  }
  s.free_block(stale.start);
  return ::operator new(bytes);
}

void MemoryPool::deallocate(void* block, std::size_t bytes) {
  if (!block) return;
  if (bytes < kRecycledBytes) return ::operator delete(block);
  State& s = *state_;
  Block stale;
  {
    const std::lock_guard lock(s.guard);
    if (block == s.lent.start) {
      bytes = s.lent.bytes;
      s.lent = {};
    }
    stale = s.kept;
    s.kept = {block, bytes};
  }
  s.free_block(stale.start);
}

void MemoryPool::release() {
  State& s = *state_;
  Block stale;
  {
    const std::lock_guard lock(s.guard);
    stale = s.kept;
    s.kept = {};
  }
  s.free_block(stale.start);
}

std::size_t MemoryPool::kept_bytes() const {
  const std::lock_guard lock(state_->guard);
  return state_->kept.bytes;
}

void MemoryPool::map_ahead(void* block, std::size_t bytes) {
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
  if (!block || bytes < kRecycledBytes || kernel_refuses) return;
  State& s = *state_;
  try {
    const std::lock_guard lock(s.guard);
    if (s.populator_of(block) != s.populators.end()) return;  // a recycled block: mapped, or being mapped
    s.populators.reserve(s.populators.size() + 1);  // so that nothing throws past the thread's start
    auto populator = std::make_unique<Populator>();
    populator->start = block;
    populator->thread = std::thread(populate, block, bytes, std::cref(populator->stop));
    s.populators.push_back(std::move(populator));
  } catch (...) {
    // No thread or memory to spare: the writer maps its own pages.
  }
#else
  (void)block, (void)bytes;
#endif
}

}  // namespace backsweep
