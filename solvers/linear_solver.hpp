#pragma once
// How implicit methods (ours and CVODES BDF) solve their Newton and stage matrices:
// `automatic` is sparse LU for models that declare their sparsity pattern (KLU,
// ours or through CVODES) and dense LU otherwise.
namespace backsweep {

enum class LinearSolver { automatic, dense, sparse };

}  // namespace backsweep
