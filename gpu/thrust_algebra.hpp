#pragma once
// ThrustAlgebra: the engine's vector operations (solvers/algebra.hpp) on Thrust's device
// system, one thread a component. The same source builds twice: with nvcc, where the
// device is a CUDA GPU, and with the host compiler on Thrust's OpenMP system
// (-DTHRUST_DEVICE_SYSTEM=THRUST_DEVICE_SYSTEM_OMP -fopenmp), which is how CI runs it.
// Steppers, the sweep and the schedule executor are not copied: they take this algebra
// as a template argument, and the schedule still runs on the host.
//
// Vectors live in memory both sides can address: CUDA managed memory (kernels do the
// work; the host reads what objectives and outputs need in place), or plain host memory
// on OpenMP. New elements are not zeroed: the engine writes before it reads, and zeroing
// on the host would pull every page back from the device.
//
// Sums run in an order fixed by n alone (strided partial sums, then the partials in
// index order), never by thread counts or the backend, so every run of a build agrees
// bitwise; for n <= 256 it is the serial order, the CPU algebra's. (Buffers kept in
// statics are freed at exit, when the CUDA runtime may be gone: cudaFree's error is moot.)
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include <thrust/execution_policy.h>
#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>

#include "gpu/system.hpp"
#include "platform/host_device.hpp"
#include "solvers/algebra.hpp"

#if THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_CUDA
#include <cuda_runtime.h>
#define BACKSWEEP_THRUST_CUDA 1
#else
#define BACKSWEEP_THRUST_CUDA 0
#endif

namespace BACKSWEEP_GPU_NAMESPACE {

// Where an allocator's memory lives under CUDA (on OpenMP it is all host memory):
//   shared     managed memory: the device computes on it, the host reads it in place;
//   host_read  pinned host memory: the device writes a few values the host reads at once
//              (a sum's last partials), with no page migration.
enum class Memory { shared, host_read };

#if BACKSWEEP_THRUST_CUDA
// Managed pages placed on the device at once, not one fault at a time where a kernel first
// writes them (a store-all sweep's checkpoints are gigabytes). Only a hint: errors ignored.
inline void place_on_device(void* p, std::size_t bytes) {
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) return;
#if CUDART_VERSION >= 13000
  cudaMemLocation location{};
  location.type = cudaMemLocationTypeDevice;
  location.id = device;
  (void)cudaMemPrefetchAsync(p, bytes, location, 0, 0);
#else
  (void)cudaMemPrefetchAsync(p, bytes, device, 0);
#endif
}
#endif

template <class T, Memory kMemory>
struct BackendAllocator {
  using value_type = T;
  template <class U>
  struct rebind {
    using other = BackendAllocator<U, kMemory>;
  };
  BackendAllocator() = default;
  template <class U>
  BackendAllocator(const BackendAllocator<U, kMemory>&) {}

  T* allocate(std::size_t n) {
#if BACKSWEEP_THRUST_CUDA
    void* p = nullptr;
    const cudaError_t status = kMemory == Memory::shared ? cudaMallocManaged(&p, n * sizeof(T))
                                                         : cudaMallocHost(&p, n * sizeof(T));
    if (status == cudaErrorMemoryAllocation) throw std::bad_alloc();
    if (status != cudaSuccess)  // no device or no driver: CUDA's reason
      throw std::runtime_error("CUDA could not allocate " + std::to_string(n * sizeof(T)) +
                               " bytes: " + cudaGetErrorString(status));
    if (kMemory == Memory::shared) place_on_device(p, n * sizeof(T));
    return static_cast<T*>(p);
#else
    return std::allocator<T>().allocate(n);
#endif
  }
  void deallocate(T* p, std::size_t n) {
#if BACKSWEEP_THRUST_CUDA
    (void)n;
    if (kMemory == Memory::shared) cudaFree(p);
    else cudaFreeHost(p);
#else
    std::allocator<T>().deallocate(p, n);
#endif
  }
  friend bool operator==(const BackendAllocator&, const BackendAllocator&) { return true; }
};

// K sums at once, as one term's K values.
template <int K>
struct Sums {
  double value[K] = {};
};

namespace detail {

// partial[k] = the sums of term(i) over i = k, k + parts, k + 2 parts, ... < n, in that
// order (neighbouring threads read neighbouring components); K values a partial.
template <int K, class Term>
struct StridedPartialSums {
  Term term;
  std::size_t n, parts;
  Sums<K>* partial;
  BACKSWEEP_HOST_DEVICE void operator()(std::size_t k) const {
    Sums<K> sum;
    for (std::size_t i = k; i < n; i += parts) {
      const Sums<K> t = term(i);
      for (int m = 0; m < K; ++m) sum.value[m] += t.value[m];
    }
    partial[k] = sum;
  }
};

// sums[r] = the sums of term(i) over row r's i = r row, ..., (r + 1) row - 1, in order; with
// Lanes = 4, in four lanes by i's place in the row mod 4, folded as (0 + 1) + (2 + 3) (the
// order of the Gray–Scott host kernel, models/builtin/gray_scott.cpp).
template <int K, int Lanes, class Term>
struct RowSums {
  static_assert(Lanes == 1 || Lanes == 4);
  Term term;
  std::size_t row;
  Sums<K>* sums;
  BACKSWEEP_HOST_DEVICE void operator()(std::size_t r) const {
    Sums<K> lane[Lanes];
    for (std::size_t i = 0; i < row; ++i) {
      const Sums<K> t = term(r * row + i);
      for (int m = 0; m < K; ++m) lane[i % Lanes].value[m] += t.value[m];
    }
    if constexpr (Lanes == 4)
      for (int m = 0; m < K; ++m)
        lane[0].value[m] = (lane[0].value[m] + lane[1].value[m]) + (lane[2].value[m] + lane[3].value[m]);
    sums[r] = lane[0];
  }
};

template <int K>
struct ReadPartial {
  const Sums<K>* partial;
  BACKSWEEP_HOST_DEVICE Sums<K> operator()(std::size_t k) const { return partial[k]; }
};

template <class Term>
struct OneSum {
  Term term;
  BACKSWEEP_HOST_DEVICE Sums<1> operator()(std::size_t i) const { return {{term(i)}}; }
};

// Counts of bins: column k of `counts` (bins rows, `parts` apart) counts bin_of(i) over
// i = k, k + parts, ... < n. Each thread owns its column: no atomics, and counts are
// integers, so the totals do not depend on any order.
template <class BinOf>
struct StridedCounts {
  BinOf bin_of;
  std::size_t n, parts, bins;
  std::uint32_t* counts;
  BACKSWEEP_HOST_DEVICE void operator()(std::size_t k) const {
    for (std::size_t b = 0; b < bins; ++b) counts[b * parts + k] = 0;
    for (std::size_t i = k; i < n; i += parts) ++counts[bin_of(i) * parts + k];
  }
};

// The second level: thread (b, j) adds row b's columns j, j + parts2, ... of the first.
struct SumColumns {
  const std::uint32_t* first;
  std::size_t parts1, parts2;
  std::uint64_t* second;
  BACKSWEEP_HOST_DEVICE void operator()(std::size_t t) const {
    const std::size_t b = t / parts2, j = t % parts2;
    std::uint64_t sum = 0;
    for (std::size_t k = j; k < parts1; k += parts2) sum += first[b * parts1 + k];
    second[t] = sum;
  }
};

// first[k] = the least i = k, k + parts, ... < n with predicate(i), else n.
template <class Predicate>
struct StridedFirst {
  Predicate predicate;
  std::size_t n, parts;
  std::size_t* first;
  BACKSWEEP_HOST_DEVICE void operator()(std::size_t k) const {
    std::size_t i = k;
    while (i < n && !predicate(i)) i += parts;
    first[k] = i < n ? i : n;
  }
};

}  // namespace detail

struct ThrustAlgebra {
  template <class T>
  using vector = std::vector<T, DefaultInitAllocator<T, BackendAllocator<T, Memory::shared>>>;
  template <class T>
  using storage = vector<T>;

  // Partial sums: the first level's count (enough threads to fill a GPU), then the
  // second's (few enough for the host to add at once).
  static constexpr std::size_t kFirstParts = std::size_t(1) << 15, kSecondParts = 256;

  template <class Operation>
  static void for_each(std::size_t n, const Operation& op) {
    if (n == 0) return;
    thrust::for_each_n(thrust::device, thrust::counting_iterator<std::size_t>(0), n, op);
  }

  template <class Term>
  static double sum(std::size_t n, const Term& term) {
    return sums<1>(n, detail::OneSum<Term>{term}).value[0];
  }

  // K sums in one pass: term(i) returns Sums<K>.
  template <int K, class Term>
  static Sums<K> sums(std::size_t n, const Term& term) {
    Sums<K> total;
    if (n == 0) return total;
    // Work buffers kept per host thread: a sum allocates nothing after its first.
    thread_local vector<Sums<K>> first(kFirstParts);
    thread_local std::vector<Sums<K>, BackendAllocator<Sums<K>, Memory::host_read>> second(kSecondParts);
    const std::size_t parts1 = std::min(n, kFirstParts), parts2 = std::min(parts1, kSecondParts);
    for_each(parts1, detail::StridedPartialSums<K, Term>{term, n, parts1, first.data()});
    for_each(parts2, detail::StridedPartialSums<K, detail::ReadPartial<K>>{{first.data()}, parts1, parts2,
                                                                          second.data()});
    for (std::size_t k = 0; k < parts2; ++k)
      for (int m = 0; m < K; ++m) total.value[m] += second[k].value[m];
    return total;
  }

  // K sums over n terms in rows of `row`, as the host sums a grid's x rows: each row's
  // terms in order (in Lanes lanes, as RowSums says), then the rows' sums in order, bitwise
  // the host's on the OpenMP system (a thread a row). On CUDA a grid's rows are too few
  // threads to fill the GPU: the strided sums above, equal to rounding.
  template <int K, int Lanes = 1, class Term>
  static Sums<K> row_sums(std::size_t n, std::size_t row, const Term& term) {
#if THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_OMP
    Sums<K> total;
    if (n == 0) return total;
    thread_local std::vector<Sums<K>, BackendAllocator<Sums<K>, Memory::host_read>> rows;
    rows.resize(n / row);
    for_each(n / row, detail::RowSums<K, Lanes, Term>{term, row, rows.data()});
    for (const Sums<K>& s : rows)
      for (int m = 0; m < K; ++m) total.value[m] += s.value[m];
    return total;
#else
    (void)row;
    return sums<K>(n, term);
#endif
  }

  // counts[bin_of(i)] += 1 for every i < n, in two levels of per-thread counts.
  template <class BinOf>
  static void count_bins(std::size_t n, const BinOf& bin_of, std::size_t bins, std::size_t* counts) {
    if (n == 0) return;
    const std::size_t parts1 = std::min(n, kFirstParts), parts2 = std::min(parts1, kSecondParts);
    thread_local vector<std::uint32_t> first;
    thread_local std::vector<std::uint64_t, BackendAllocator<std::uint64_t, Memory::host_read>> second;
    if (first.size() < bins * parts1) first.resize(bins * parts1);
    if (second.size() < bins * parts2) second.resize(bins * parts2);
    for_each(parts1, detail::StridedCounts<BinOf>{bin_of, n, parts1, bins, first.data()});
    for_each(bins * parts2, detail::SumColumns{first.data(), parts1, parts2, second.data()});
    for (std::size_t b = 0; b < bins; ++b)
      for (std::size_t j = 0; j < parts2; ++j) counts[b] += second[b * parts2 + j];
  }

  // The least i < n with predicate(i), or n: each of the first level's threads finds its
  // first in its strided set, and the least of those is the answer, whatever the order.
  // (Our own rather than thrust::find_if, whose OpenMP system binds a null reference.)
  template <class Predicate>
  static std::size_t first_index(std::size_t n, const Predicate& predicate) {
    if (n == 0) return 0;
    const std::size_t parts = std::min(n, kFirstParts);
    thread_local std::vector<std::size_t, BackendAllocator<std::size_t, Memory::host_read>> first(kFirstParts);
    for_each(parts, detail::StridedFirst<Predicate>{predicate, n, parts, first.data()});
    std::size_t found = n;
    for (std::size_t k = 0; k < parts; ++k) found = std::min(found, first[k]);
    return found;
  }
};

static_assert(Algebra<ThrustAlgebra>);

}  // namespace BACKSWEEP_GPU_NAMESPACE
