#pragma once
// ThreadAlgebra<Capacity>: the algebra of one thread's own small vectors (solvers/
// algebra.hpp), for an ensemble member stepped inside one GPU (or OpenMP) thread. Vectors
// are arrays of at most Capacity values held in the thread itself, and every operation is
// that thread's serial loop: the CPU algebra's order, so sums and norms round as on the CPU.
#include <cassert>
#include <cstddef>

#include "gpu/system.hpp"
#include "platform/host_device.hpp"
#include "solvers/algebra.hpp"

namespace BACKSWEEP_GPU_NAMESPACE {

// A vector of up to Capacity values in place (no heap): what a kernel's stepper holds.
template <class T, std::size_t Capacity>
class InlineVector {
 public:
  BACKSWEEP_HOST_DEVICE InlineVector() {}
  BACKSWEEP_HOST_DEVICE explicit InlineVector(std::size_t n) : size_(n) { assert(n <= Capacity); }
  BACKSWEEP_HOST_DEVICE std::size_t size() const { return size_; }
  BACKSWEEP_HOST_DEVICE void resize(std::size_t n) {
    assert(n <= Capacity);
    size_ = n;
  }
  BACKSWEEP_HOST_DEVICE T* data() { return values_; }
  BACKSWEEP_HOST_DEVICE const T* data() const { return values_; }
  BACKSWEEP_HOST_DEVICE T& operator[](std::size_t i) { return values_[i]; }
  BACKSWEEP_HOST_DEVICE const T& operator[](std::size_t i) const { return values_[i]; }

 private:
  T values_[Capacity];
  std::size_t size_ = 0;
};

template <std::size_t Capacity>
struct ThreadAlgebra : SerialLoops {
  template <class T>
  using vector = InlineVector<T, Capacity>;
  template <class T>
  using storage = InlineVector<T, Capacity>;
};

static_assert(Algebra<ThreadAlgebra<1>>);

}  // namespace BACKSWEEP_GPU_NAMESPACE
