#pragma once
// Multigrid: a geometric V-cycle on a structured grid (models/grid.hpp) as a Krylov
// preconditioner, for the stage matrices I - h a_ii J of PDEs whose implicit steps sit far
// beyond the explicit stability limit, where Jacobi and ILU need more iterations the finer
// the grid and multigrid does not.
//
// Coarsening keeps every other point along each axis that has at least 3 (an even number,
// periodic), fields coarsened alike; prolongation P is multilinear interpolation (at a
// Dirichlet wall the missing neighbour is 0, at a Neumann wall the coarse value is held),
// restriction R = Pᵀ, and coarse operators are Galerkin's A_c = Pᵀ A P: built from the
// assembled stage matrix alone, so every model on a grid, config-defined included, gets its
// coarse operators without rediscretising. States past the grid's fields (an objective's
// quadrature) are carried to every level as they are. Smoothing is one Gauss–Seidel sweep
// forward before the coarse correction and one backward after, so for a symmetric A the
// cycle is a symmetric preconditioner (CG may use it); the coarsest level, under
// kCoarsestSize unknowns, is solved by dense LU. Deterministic: bitwise from A and r.
#include <cstddef>
#include <vector>

#include "models/grid.hpp"
#include "solvers/dense_lu.hpp"
#include "solvers/krylov/csr_matrix.hpp"
#include "solvers/krylov/grid_transfer.hpp"
#include "solvers/krylov/preconditioners.hpp"

namespace backsweep::krylov {

class Multigrid final : public Preconditioner {
 public:
  static constexpr std::size_t kCoarsestSize = 200;

  // Plans the levels and their prolongations (the grid's alone: set_matrix does the rest).
  explicit Multigrid(GridUnknowns unknowns);
  bool set_matrix(const CsrMatrix& a) override;
  void apply(const double* r, double* z) override;

  std::size_t levels() const { return levels_.size(); }
  const GridUnknowns& level_unknowns(std::size_t level) const { return levels_[level].unknowns; }

 private:
  struct Level {
    GridUnknowns unknowns;
    CsrMatrix a;  // the level's operator (level 0's is the given A, not copied)
    CsrMatrix prolongation, restriction;  // to this level from the next coarser one, and back
    GridTransfer transfer;                // the same, applied axis by axis
    std::vector<double> inverse_diagonal;
    std::vector<std::size_t> diagonal;
    std::vector<double> x, b, r;  // the cycle's vectors
  };
  const CsrMatrix& op(std::size_t level) const { return level == 0 ? *fine_ : levels_[level].a; }
  void smooth(std::size_t level, bool forward);
  void cycle(std::size_t level);

  std::vector<Level> levels_;
  const CsrMatrix* fine_ = nullptr;
  DenseLU<double> coarsest_;
  bool coarsest_direct_ = false;  // dense LU; else (a grid that will not coarsen) smoothing
};

}  // namespace backsweep::krylov
