#pragma once
// How implicit methods (ours and CVODES BDF) solve their Newton and stage matrices:
// `automatic` is sparse LU for models that declare their sparsity pattern (Eigen
// SparseLU in ours, KLU in CVODES) and dense LU otherwise.
namespace backsweep {

enum class LinearSolver { automatic, dense, sparse };

}  // namespace backsweep
