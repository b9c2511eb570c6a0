#pragma once
// The algebra: where state vectors live and how an operation is applied to every
// component (Boost.Odeint's idea). Steppers, the adjoint sweep and the monitor never loop
// over components themselves: they hand an element-wise operation (solvers/
// vector_operations.hpp) to their algebra. A GPU backend is a new algebra, not new
// steppers: it supplies its own vector type and runs for_each/sum on the device.
//
// An algebra provides
//   template <class T> using vector = ...;       owning storage for n values of T
//   for_each(n, op)                              op(i) for i in [0, n), any order
//   sum(n, op)                                   the sum of op(i), a double, in a FIXED
//                                                order (results must not depend on threads)
//   first_index(n, predicate)                    the least i with predicate(i), or n
#include <concepts>
#include <cstddef>
#include <vector>

#include "models/host_device.hpp"

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
  A::for_each(n, detail::ProbeOperation{});
  { A::sum(n, detail::ProbeTerm{}) } -> std::convertible_to<double>;
  { A::first_index(n, detail::ProbePredicate{}) } -> std::convertible_to<std::size_t>;
};

// Contiguous host memory, components in index order. The loops inline into the caller,
// so a model with a compile-time size gets them fully unrolled.
struct CpuAlgebra {
  template <class T>
  using vector = std::vector<T>;

  template <class Operation>
  BACKSWEEP_INLINE static void for_each(std::size_t n, Operation&& op) {
    for (std::size_t i = 0; i < n; ++i) op(i);
  }

  template <class Term>
  BACKSWEEP_INLINE static double sum(std::size_t n, Term&& term) {
    double total = 0.0;
    for (std::size_t i = 0; i < n; ++i) total += term(i);
    return total;
  }

  template <class Predicate>
  static std::size_t first_index(std::size_t n, Predicate&& predicate) {
    for (std::size_t i = 0; i < n; ++i)
      if (predicate(i)) return i;
    return n;
  }
};

static_assert(Algebra<CpuAlgebra>);

}  // namespace backsweep
