#pragma once
// Where what a checkpoint schedule keeps lives: slots of `width` values each (a state, or
// a stepper's record of one step), addressed by (slot, level). The memory level keeps
// float64 or float32 (half the memory; values come back rounded); the disk level is a
// SlotFile (checkpoint_file.hpp: a scratch file under the output folder). The executor and
// the schedules never touch storage; the backend asks the store. Store-all appends a
// memory slot per step, the number of steps not being known in advance.
#include <cstddef>
#include <functional>
#include <memory>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

#include "adjoint/checkpoint_schedule.hpp"
#include "adjoint/gradient_problem.hpp"
#include "adjoint/slot_file.hpp"
#include "solvers/algebra.hpp"
#include "solvers/recycled_memory.hpp"
#include "solvers/vector_operations.hpp"

namespace backsweep {

template <class T, Algebra A = CpuAlgebra>
class CheckpointStore {
 public:
  // float32 is for double stores only (others keep their own scalar); a disk level for
  // double stores only.
  // Host memory slots draw on `memory` (the run's context's pool).
  CheckpointStore(std::size_t width, CheckpointOptions::Storage storage, MemoryPool& memory,
                  std::size_t memory_slots = 0, std::unique_ptr<SlotFile> disk = nullptr,
                  std::size_t disk_slots = 0)
      : n_(width),
        float32_(std::is_same_v<T, double> && storage == CheckpointOptions::Storage::float32),
        wide_(drawing_on<T>(memory)), narrow_(drawing_on<float>(memory)),
        disk_(std::move(disk)), disk_slots_(disk_ ? disk_slots : 0) {
    reserve(memory_slots);
    resize(memory_slots);
  }

  std::size_t width() const { return n_; }
  std::size_t slots(Level level = Level::memory) const {
    return level == Level::disk ? disk_slots_ : (float32_ ? narrow_.size() : wide_.size()) / n_;
  }
  std::size_t bytes_per_slot(Level level = Level::memory) const {
    return n_ * (level == Level::memory && float32_ ? sizeof(float) : sizeof(T));
  }

  // Memory slots, growing and shrinking (store-all).
  void resize(std::size_t slots) {
    if (float32_) narrow_.resize(slots * n_);
    else wide_.resize(slots * n_);
  }
  // Room for `slots` memory slots, all about to be filled: their pages are mapped ahead
  // of the writer (solvers/recycled_memory.hpp).
  void reserve(std::size_t slots) {
    if (float32_) reserve_mapped(narrow_, slots * n_);
    else reserve_mapped(wide_, slots * n_);
  }
  // Appends a memory slot holding `values`.
  void push_back(const T* values) {
    resize(slots() + 1);
    put(slots() - 1, Level::memory, values);
  }
  // Where memory slot `slot` lies, for writing into it in place (float64 only).
  T* slot(std::size_t slot) { return wide_.data() + slot * n_; }
  bool in_place() const { return !float32_; }

  void put(std::size_t slot, Level level, const T* state) {
    if (level == Level::disk) {
      if constexpr (std::is_same_v<T, double>) return disk_->write(slot, state);
      else throw std::logic_error("disk slots keep doubles only");
    }
    if constexpr (std::is_same_v<T, double>)
      if (float32_) return A::for_each(n_, Narrow{state, narrow_.data() + slot * n_});
    copy<A>(n_, state, wide_.data() + slot * n_);
  }
  // The state in (slot, level): in place for float64 memory, else read into `scratch`.
  const T* get(std::size_t slot, Level level, T* scratch) {
    if (level == Level::disk) {
      if constexpr (std::is_same_v<T, double>) {
        disk_->read(slot, scratch);
        return scratch;
      } else {
        throw std::logic_error("disk slots keep doubles only");
      }
    }
    if constexpr (std::is_same_v<T, double>)
      if (float32_) {
        A::for_each(n_, Widen{narrow_.data() + slot * n_, scratch});
        return scratch;
      }
    return wide_.data() + slot * n_;
  }
  const T* get(std::size_t slot, T* scratch) { return get(slot, Level::memory, scratch); }

 public:
  // Kernel functors are public: CUDA names a kernel's functor type outside the class.
  struct Narrow {
    const T* from;
    float* to;
    BACKSWEEP_HOST_DEVICE void operator()(std::size_t i) const { to[i] = float(from[i]); }
  };
  struct Widen {
    const float* from;
    T* to;
    BACKSWEEP_HOST_DEVICE void operator()(std::size_t i) const { to[i] = T(double(from[i])); }
  };

 private:
  // The algebra's storage, from `memory` where its allocator draws on a pool (the CPU's).
  template <class U>
  static typename A::template storage<U> drawing_on(MemoryPool& memory) {
    using Storage = typename A::template storage<U>;
    using Allocator = typename Storage::allocator_type;
    if constexpr (std::is_constructible_v<Allocator, RecyclingAllocator<U>>)
      return Storage(Allocator(RecyclingAllocator<U>(memory)));
    else return Storage();
  }

  template <class V>
  static void reserve_mapped(V& values, std::size_t count) {
    values.reserve(count);
    if constexpr (requires { values.get_allocator().pool; })
      values.get_allocator().pool->map_ahead(values.data(), values.capacity() * sizeof(typename V::value_type));
  }

  std::size_t n_;
  bool float32_;
  // Slots are written before they are read: growing them need not zero them first.
  typename A::template storage<T> wide_;
  typename A::template storage<float> narrow_;
  std::unique_ptr<SlotFile> disk_;
  std::size_t disk_slots_;
};

}  // namespace backsweep
