#pragma once
// The algebra: where state vectors live and how an operation is applied to every
// component (Boost.Odeint's idea). Steppers, the adjoint sweep and the monitor never loop
// over components themselves: they hand an element-wise operation (solvers/
// vector_operations.hpp) to their algebra. A GPU backend is a new algebra, not new
// steppers: it supplies its own vector type and runs for_each/sum on the device.
//
// An algebra provides
//   template <class T> using vector = ...;       owning storage for n values of T; what
//                                                vector(n) holds is unspecified (write
//                                                first, or construct with vector(n, 0))
//   template <class T> using storage = ...;      the same, never zeroed (checkpoint slots)
//   for_each(n, op)                              op(i) for i in [0, n), any order
//   sum(n, op)                                   the sum of op(i), a double, in a FIXED
//                                                order (results must not depend on threads)
//   first_index(n, predicate)                    the least i with predicate(i), or n
// and may declare
//   static constexpr bool in_calling_thread = true;   its loops run in the caller's thread,
//                                                 so they may read the caller's local arrays
//   static constexpr bool host_vectors = true;   its vectors are plain host arrays, which
//                                                 host code may use in place: Newton's linear
//                                                 solves, SUNDIALS, the stiffness probe, a
//                                                 state kept on the stack, pages mapped ahead
//   static constexpr bool split_over_ranks = true;  its vectors hold one rank's block of
//                                                 the state (solvers/rank_algebra.hpp), so
//                                                 host code that sums a vector itself (the
//                                                 stiffness probe) would see a block only
// What runs only there asks host_vectors<A>, never which algebra it has.
#include <concepts>
#include <cstddef>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "platform/host_device.hpp"
#include "solvers/recycled_memory.hpp"

namespace backsweep {

namespace detail {
struct ProbeOperation {
  BACKSWEEP_HOST_DEVICE void operator()(std::size_t) const {}
};
struct ProbeTerm {
  BACKSWEEP_HOST_DEVICE double operator()(std::size_t) const { return 0.0; }
};
struct ProbePredicate {
  BACKSWEEP_HOST_DEVICE bool operator()(std::size_t) const { return false; }
};
}  // namespace detail

template <class A>
concept Algebra = requires(std::size_t n) {
  typename A::template vector<double>;
  typename A::template storage<double>;
  A::for_each(n, detail::ProbeOperation{});
  { A::sum(n, detail::ProbeTerm{}) } -> std::convertible_to<double>;
  { A::first_index(n, detail::ProbePredicate{}) } -> std::convertible_to<std::size_t>;
};

// An allocator whose vectors leave new elements default-initialised (no zeroing): for
// storage written before it is read, where zeroing gigabytes of slots would cost a pass.
template <class U, class Base = std::allocator<U>>
struct DefaultInitAllocator : Base {
  using value_type = U;
  template <class V>
  struct rebind {
    using other = DefaultInitAllocator<V, typename std::allocator_traits<Base>::template rebind_alloc<V>>;
  };
  DefaultInitAllocator() = default;
  explicit DefaultInitAllocator(const Base& base) : Base(base) {}
  template <class V, class B>
  DefaultInitAllocator(const DefaultInitAllocator<V, B>& other) : Base(static_cast<const B&>(other)) {}
  template <class V>
  void construct(V* p) {
    ::new (static_cast<void*>(p)) V;
  }
  template <class V, class... Args>
  void construct(V* p, Args&&... args) {
    ::new (static_cast<void*>(p)) V(std::forward<Args>(args)...);
  }
  friend bool operator==(const DefaultInitAllocator& a, const DefaultInitAllocator& b) {
    return static_cast<const Base&>(a) == static_cast<const Base&>(b);
  }
};

// The loops of an algebra that runs in the calling thread, component after component: the
// host's, and a GPU thread's own (gpu/thread_algebra.hpp), so both round alike. They
// inline into the caller, so a model with a compile-time size gets them fully unrolled.
struct SerialLoops {
  static constexpr bool in_calling_thread = true;

  BACKSWEEP_EXEC_CHECK_DISABLE
  template <class Operation>
  BACKSWEEP_HOST_DEVICE BACKSWEEP_INLINE static void for_each(std::size_t n, Operation&& op) {
    for (std::size_t i = 0; i < n; ++i) op(i);
  }

  BACKSWEEP_EXEC_CHECK_DISABLE
  template <class Term>
  BACKSWEEP_HOST_DEVICE BACKSWEEP_INLINE static double sum(std::size_t n, Term&& term) {
    double total = 0.0;
    for (std::size_t i = 0; i < n; ++i) total += term(i);
    return total;
  }

  BACKSWEEP_EXEC_CHECK_DISABLE
  template <class Predicate>
  BACKSWEEP_HOST_DEVICE static std::size_t first_index(std::size_t n, Predicate&& predicate) {
    for (std::size_t i = 0; i < n; ++i)
      if (predicate(i)) return i;
    return n;
  }
};

// Contiguous host memory, components in index order.
struct CpuAlgebra : SerialLoops {
  static constexpr bool host_vectors = true;
  template <class T>
  using vector = std::vector<T>;
  template <class T>
  using storage = std::vector<T, DefaultInitAllocator<T, RecyclingAllocator<T>>>;
};

static_assert(Algebra<CpuAlgebra>);

template <class A>
inline constexpr bool runs_in_calling_thread = [] {
  if constexpr (requires { A::in_calling_thread; }) return bool(A::in_calling_thread);
  else return false;
}();

template <class A>
inline constexpr bool host_vectors = [] {
  if constexpr (requires { A::host_vectors; }) return bool(A::host_vectors);
  else return false;
}();

template <class A>
inline constexpr bool split_over_ranks = [] {
  if constexpr (requires { A::split_over_ranks; }) return bool(A::split_over_ranks);
  else return false;
}();

// Host values moved into the algebra's vector (no copy where that is a std::vector).
template <Algebra A, class T>
typename A::template vector<T> to_algebra(std::vector<T> values) {
  if constexpr (std::is_same_v<typename A::template vector<T>, std::vector<T>>) return values;
  else return typename A::template vector<T>(values.begin(), values.end());
}

}  // namespace backsweep
