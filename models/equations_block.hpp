#pragma once
// A grid model defined by equations (a config's [model.equations] on a [grid]) on one
// block of the grid split over ranks (models/grid_block.hpp), run by its compiled kernels
// (compiled_kernel.hpp). The block's state and parameter fields hold its own points.
//
// Each right-hand side and VJP runs the whole grid's kernels on the block's own arrays
// as a grid of their own (CompiledFieldKernel::on_planes: the whole grid's coordinates
// there), with no copy, so the kernels' memory traffic stays theirs. Near a cut the block
// ends in a wall or a wrap that is not the grid's, so the two planes next to each cut are
// computed again in a window: those planes and two more each side, from the block and
// from the ghost planes exchanged with the neighbouring rank, copied into a small grid.
//
// Why two: a VJP at a point gathers its neighbours' operator adjoints, which read the
// fields out to their own neighbours, twice an operator's reach (lap, dx, div_grad reach
// one point; bilap, which reaches two, has no compiled kernel). So each owned point reads
// the same neighbours and coordinates as in the whole grid, and the scalar parameters'
// adjoints are summed row by row and the rows' sums added in the grid's order
// (GridBlock::fold_rows), as the kernels alone do: the gradient is bitwise the whole
// grid's for any number of ranks. Run with RankAlgebra.
#include <cstddef>
#include <type_traits>
#include <vector>

#include "models/compiled_kernel.hpp"
#include "models/expression_model.hpp"
#include "models/grid_block.hpp"

namespace backsweep::models {

class BlockedEquations {
 public:
  // The ghost planes each side of a block, and so the fewest planes a block may have.
  static constexpr std::size_t kGhostPlanes = 2;

  // `model` compiled for the CPU (compiled() not null), kept by reference: it outlives
  // this object. Throws std::invalid_argument where the block has fewer than kGhostPlanes.
  BlockedEquations(const ExpressionModel& model, GridBlock block);

  const GridBlock& block() const { return block_; }
  std::size_t state_size() const { return fields_ * block_.points(); }
  std::size_t param_size() const { return scalars_ + parameter_fields_ * block_.points(); }

  // On doubles the compiled kernels on the block; other scalars (Dual tangents, which the
  // split's runs do not take) the interpreter on the whole grid, gathered from every rank.
  template <class T>
  void operator()(T t, const T* y, const T* p, T* dydt) const {
    if constexpr (std::is_same_v<T, double>) {
      rates(t, y, p, dydt);
    } else {
      const std::vector<T> whole_y = block_.gather(y, fields_), whole_p = whole_parameters(p);
      std::vector<T> whole_dydt(whole_y.size());
      model_(t, whole_y.data(), whole_p.data(), whole_dydt.data());
      block_.take_part(whole_dydt.data(), fields_, dydt);
    }
  }

  // lambdaᵀ df/dy and lambdaᵀ df/dp (vjp_p may be null).
  void vjp(double t, const double* y, const double* p, const double* lambda, double* vjp_y, double* vjp_p) const;

 private:
  // Planes [lo, hi) of the block computed in a buffer of planes [start, start + count),
  // counted from the block's first (below 0 and past its end: ghost planes).
  struct Window {
    std::size_t lo, hi;
    std::ptrdiff_t start;
    std::size_t count;
    CompiledFieldKernel kernel;
  };
  // A vector's fields' ghost planes, below and above the block, field after field.
  struct Ghosts {
    std::vector<double> below, above;
  };

  void rates(double t, const double* y, const double* p, double* dydt) const;
  template <class T>
  std::vector<T> whole_parameters(const T* p) const {
    std::vector<T> whole(p, p + scalars_);
    const std::vector<T> fields = block_.gather(p + scalars_, parameter_fields_);
    whole.insert(whole.end(), fields.begin(), fields.end());
    return whole;
  }
  Window window(std::size_t lo, std::size_t hi, const CompiledFieldKernel& whole) const;
  void exchange(const double* fields, std::size_t count, Ghosts& ghosts) const;
  // The window's planes of `count` fields (after `scalars` numbers) into `buffer`; and the
  // window's own planes of buffer fields back into the block's.
  void fill(const Window& w, const double* fields, std::size_t scalars, std::size_t count, const Ghosts& ghosts,
            std::vector<double>& buffer) const;
  void take(const Window& w, const double* buffer, std::size_t scalars, std::size_t count, double* fields) const;

  const ExpressionModel& model_;
  GridBlock block_;
  std::size_t fields_, scalars_, parameter_fields_;
  std::size_t ghosts_below_, ghosts_above_;  // the ghost planes each side: 0 at a wall
  CompiledFieldKernel kernel_;               // on the block's planes
  std::vector<Window> windows_;              // by each cut
  mutable Ghosts y_ghosts_, p_ghosts_, lambda_ghosts_;
  mutable std::vector<double> y_, p_, lambda_, out_y_, out_p_, scratch_, window_scratch_, row_sums_;
};

}  // namespace backsweep::models
