#pragma once
// How implicit methods (ours and CVODES BDF) solve their Newton and stage matrices.
// `automatic` is sparse LU (KLU, ours or through CVODES) for a model that declares its
// sparsity pattern, where sparse_lu_pays(), and dense LU otherwise.
#include <cstddef>

namespace backsweep {

enum class LinearSolver { automatic, dense, sparse };

// automatic's choice for a model with a pattern: sparse once the system is large and
// mostly zeros. Below 32 states dense LU is as fast, so small config ODEs (whose
// expression models all have a pattern now) keep dense LU; large sparse ones, PDEs on
// grids above all, get KLU.
constexpr bool sparse_lu_pays(std::size_t states, std::size_t state_nonzeros) {
  return states >= 32 && state_nonzeros * 4 <= states * states;
}

}  // namespace backsweep
