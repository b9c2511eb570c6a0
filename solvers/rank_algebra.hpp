#pragma once
// The algebra of a grid model split into blocks over ranks (models/grid_block.hpp): each
// rank's vectors hold its block, element-wise loops run on the host as CpuAlgebra's, and
// what decides the run is agreed by every rank. A scan for NaN or Inf stops every rank
// when any finds one (else the others would wait on it at the next halo exchange); a sum
// adds the ranks' sums in rank order, so it is the same on every rank and a norm means
// the whole grid's. Sums here feed the growth monitor, never a gradient: a gradient's sums
// over the grid are the kernels' own, in the grid's order. (Adaptive steps' error norms
// divide by the vector's length, a block's here: split runs take fixed steps.)
#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

#include "platform/ranks.hpp"
#include "solvers/algebra.hpp"
#include "solvers/vector_operations.hpp"

namespace backsweep {

struct RankAlgebra : CpuAlgebra {
  static constexpr bool split_over_ranks = true;

  template <class Term>
  static double sum(std::size_t n, Term&& term) {
    const double mine = CpuAlgebra::sum(n, term);
    if (ranks::count() == 1) return mine;
    double total = 0.0;
    for (const std::string& bytes : ranks::all_gather(std::string(reinterpret_cast<const char*>(&mine), sizeof mine))) {
      double value = 0.0;
      std::memcpy(&value, bytes.data(), sizeof value);
      total += value;
    }
    return total;
  }

  // The least i with predicate(i) on this rank; where another rank found one and this
  // one did not, 0 (every rank stops alike) and found_elsewhere() says so.
  template <class Predicate>
  static std::size_t first_index(std::size_t n, Predicate&& predicate) {
    return agreed(n, CpuAlgebra::first_index(n, predicate));
  }

  template <class T>
  static std::size_t first_non_finite(std::size_t n, const T* x) {
    return agreed(n, backsweep::first_non_finite<CpuAlgebra>(n, x));
  }

  // Whether the last scan stopped this rank for what another found: its index is no NaN.
  static bool& found_elsewhere() {
    thread_local bool elsewhere = false;
    return elsewhere;
  }

 private:
  static std::size_t agreed(std::size_t n, std::size_t mine) {
    found_elsewhere() = false;
    if (ranks::count() == 1) return mine;
    bool any = false;
    for (const std::string& found : ranks::all_gather(std::string(1, mine < n ? '1' : '0'))) any |= found == "1";
    if (mine < n || !any) return mine;
    found_elsewhere() = true;
    return 0;
  }
};

static_assert(Algebra<RankAlgebra>);

}  // namespace backsweep
