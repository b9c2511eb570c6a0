#pragma once
// A grid model defined by equations (a config's [model.equations] on a [grid]) on one
// block of the grid split over ranks (models/grid_block.hpp), run by its compiled kernels
// (compiled_kernel.hpp). The block's state and parameter fields hold its own points; each
// right-hand side and VJP copies them between ghost planes, exchanged with the
// neighbouring ranks, and runs the whole grid's kernels on those planes as a grid of their
// own (CompiledFieldKernel::on_planes).
//
// Ghost planes: a VJP at a point gathers its neighbours' operator adjoints, which read the
// fields out to their own neighbours, so a block needs twice an operator's reach: 2 (lap,
// dx, div_grad; bilap, which reaches two points, has no compiled kernel). Beyond them the
// kernels see a wall or a wrap that is not the grid's; what that changes stays in the
// ghost planes, which are thrown away. Each owned point thus reads the same neighbours and
// coordinates as in the whole grid, and the scalar parameters' adjoints are summed row by
// row and the rows' sums added in the grid's order (GridBlock::fold_rows), as the kernels
// alone do: the gradient is bitwise the whole grid's for any number of ranks. Run with
// RankAlgebra.
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
  void rates(double t, const double* y, const double* p, double* dydt) const;
  std::size_t padded_planes() const;  // the block's and its ghost planes
  template <class T>
  std::vector<T> whole_parameters(const T* p) const {
    std::vector<T> whole(p, p + scalars_);
    const std::vector<T> fields = block_.gather(p + scalars_, parameter_fields_);
    whole.insert(whole.end(), fields.begin(), fields.end());
    return whole;
  }
  // `count` fields of the block (after `scalars` numbers) copied between their ghost
  // planes into `padded`; and the owned points of padded fields back.
  void pad(const double* block, std::size_t scalars, std::size_t count, std::vector<double>& padded) const;
  void unpad(const double* padded, std::size_t scalars, std::size_t count, double* block) const;

  const ExpressionModel& model_;
  GridBlock block_;
  std::size_t fields_, scalars_, parameter_fields_;
  std::size_t ghosts_below_, padded_points_;  // ghost planes below the block; points with them
  CompiledFieldKernel kernel_;                // on the block's planes and its ghost planes
  mutable std::vector<double> y_, p_, lambda_, out_y_, out_p_, scratch_, row_sums_;
};

}  // namespace backsweep::models
