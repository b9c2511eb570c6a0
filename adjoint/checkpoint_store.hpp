#pragma once
// Where the states a checkpoint schedule keeps live: numbered slots of one state each, in
// float64 or float32 (half the memory; states come back rounded). The executor and the
// schedules never touch storage; the adjoint sweep asks the store. A store that grows
// slot by slot serves store-all when the number of steps is not known in advance.
#include <cstddef>
#include <type_traits>

#include "adjoint/gradient_problem.hpp"
#include "solvers/algebra.hpp"
#include "solvers/vector_operations.hpp"

namespace backsweep {

template <class T, Algebra A = CpuAlgebra>
class CheckpointStore {
 public:
  CheckpointStore(std::size_t n, CheckpointOptions::Storage storage)
      : n_(n), float32_(storage == CheckpointOptions::Storage::float32) {}

  std::size_t slots() const { return (float32_ ? narrow_.size() : wide_.size()) / n_; }
  void resize(std::size_t slots) {
    if (float32_) narrow_.resize(slots * n_);
    else wide_.resize(slots * n_);
  }
  std::size_t bytes_per_slot() const { return bytes_per_slot(n_, float32_); }
  static std::size_t bytes_per_slot(std::size_t n, bool float32) {
    return n * (float32 ? sizeof(float) : sizeof(T));
  }

  void put(std::size_t slot, const T* state) {
    if constexpr (std::is_same_v<T, double>)
      if (float32_) return A::for_each(n_, Narrow{state, narrow_.data() + slot * n_});
    copy<A>(n_, state, wide_.data() + slot * n_);
  }
  // The state in `slot`: in place for float64, widened into `scratch` for float32.
  const T* get(std::size_t slot, T* scratch) const {
    if constexpr (std::is_same_v<T, double>)
      if (float32_) {
        A::for_each(n_, Widen{narrow_.data() + slot * n_, scratch});
        return scratch;
      }
    return wide_.data() + slot * n_;
  }

 private:
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

  std::size_t n_;
  bool float32_;
  typename A::template vector<T> wide_;
  typename A::template vector<float> narrow_;
};

}  // namespace backsweep
