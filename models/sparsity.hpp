#pragma once
// Sparsity of a model's Jacobian and its column colouring (Curtis, Powell and Reid 1974):
// columns that share no row can be seeded in one Dual lane together, so a Jacobian with
// a few colours costs a few forward sweeps however large it is (see sparse_jacobian.hpp).
//
// The Jacobian here is df/d[y, p], n x (n + n_param): columns 0 .. n-1 are the states,
// columns n .. n + n_param - 1 the parameters. A model declares its pattern with a
// `sparsity()` member, or detect_sparsity() finds it by tracing the model once.
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/detail/dependency_tracer.hpp"
#include "models/model.hpp"

namespace backsweep {

class Grid;

// The nonzeros of an n x (n + n_param) Jacobian in compressed sparse rows: row i's
// columns are column_index[row_start[i] .. row_start[i + 1]), strictly increasing.
// Values that go with it (SparseJacobian::values()) are stored in the same order.
struct SparsityPattern {
  std::size_t rows = 0;     // n, the states
  std::size_t columns = 0;  // n + n_param
  std::vector<std::size_t> row_start{0};
  std::vector<std::uint32_t> column_index;

  // Builds a pattern from each row's columns, in any order, repeats allowed. Throws
  // std::invalid_argument for a column outside 0 .. n + n_param - 1 or a wrong row count.
  static SparsityPattern from_rows(std::size_t n_state, std::size_t n_param,
                                   std::vector<std::vector<std::uint32_t>> row_columns);

  std::size_t state_size() const { return rows; }
  std::size_t param_size() const { return columns - rows; }
  std::size_t nnz() const { return column_index.size(); }
  std::size_t state_nonzeros() const {  // those of df/dy
    std::size_t count = 0;
    for (const std::uint32_t column : column_index) count += column < rows;
    return count;
  }
  std::span<const std::uint32_t> row(std::size_t i) const {
    return {column_index.data() + row_start[i], column_index.data() + row_start[i + 1]};
  }

  // Whether the arrays describe a pattern as documented above; when not, and `error` is
  // given, says what is wrong. Hand-written `sparsity()` members are checked with it.
  bool is_valid(std::string* error = nullptr) const;

  bool operator==(const SparsityPattern&) const = default;
};

// A model that knows its pattern: `SparsityPattern sparsity() const`. It must cover every
// entry that can be nonzero anywhere the model is used; a missing entry silently gives a
// wrong Jacobian.
template <class M>
concept HasSparsityPattern = requires(const M& m) {
  { m.sparsity() } -> std::convertible_to<SparsityPattern>;
};

// A model that asks for its pattern to be detected (`static constexpr bool
// detect_sparsity = true;`): see the WARNING of detect_sparsity.
template <class M>
concept AsksForSparsityDetection = requires {
  requires M::detect_sparsity;
} && DeclaresItsSizes<M> && RightHandSideFor<M, detail::DependencyTracer>;

// The pattern of df/d[y, p] at (t, y, p), found by running the model once on
// dependency-tracing scalars. Cost: one model evaluation plus the set unions, O(nnz) for
// a model whose outputs each depend on a few inputs.
//
// WARNING: branches follow the values at (t, y, p), as they do for Dual, so the pattern
// is that of the branches taken there. A model whose branches change which inputs an
// output reads (`if (y[0] > 0) f = y[1]; else f = y[2];`) needs the union of its
// branches' patterns: declare it with `sparsity()` instead, or detect at several points
// and merge. Entries that are zero at (t, y, p) only by value (x * 0) are kept.
template <class M>
  requires DeclaresItsSizes<M> && RightHandSideFor<M, detail::DependencyTracer>
SparsityPattern detect_sparsity(const M& model, double t, const double* y, const double* p) {
  using detail::DependencyTracer;
  const std::size_t n = backsweep::state_size(model), np = backsweep::param_size(model);
  if (n + np > std::size_t{UINT32_MAX})
    throw std::length_error("detect_sparsity: column indices are 32-bit");
  detail::DependencyTape tape;
  std::vector<DependencyTracer> ty(n), tp(np), tf(n);
  for (std::size_t j = 0; j < n; ++j)
    ty[j] = DependencyTracer(y[j], tape.variable(static_cast<std::uint32_t>(j)), &tape);
  for (std::size_t j = 0; j < np; ++j)
    tp[j] = DependencyTracer(p[j], tape.variable(static_cast<std::uint32_t>(n + j)), &tape);
  model(DependencyTracer(t), ty.data(), tp.data(), tf.data());

  SparsityPattern pattern;
  pattern.rows = n;
  pattern.columns = n + np;
  pattern.row_start.reserve(n + 1);
  for (std::size_t i = 0; i < n; ++i) {
    const std::span<const std::uint32_t> columns = tape.set(tf[i].set);  // set 0: a constant
    pattern.column_index.insert(pattern.column_index.end(), columns.begin(), columns.end());
    pattern.row_start.push_back(pattern.column_index.size());
  }
  return pattern;
}

// The pattern detected at t = 0, y = p = 0: what `sparsity()` returns for a model whose
// branches never change which inputs an output reads (stencil kernels; config
// expressions, whose if(), min and max trace both branches).
template <class M>
  requires DeclaresItsSizes<M> && RightHandSideFor<M, detail::DependencyTracer>
SparsityPattern traced_sparsity(const M& model) {
  const std::vector<double> y(backsweep::state_size(model), 0.0), p(backsweep::param_size(model), 0.0);
  return detect_sparsity(model, 0.0, y.data(), p.data());
}

// The model's declared pattern if it has one, else the one detected at (t, y, p).
template <class M>
SparsityPattern sparsity_pattern(const M& model, double t, const double* y, const double* p) {
  if constexpr (HasSparsityPattern<M>) return model.sparsity();
  else return detect_sparsity(model, t, y, p);
}

// A partition of the columns into colours such that no two columns of one colour have a
// nonzero in the same row (distance-2 colouring of the column graph).
struct ColumnColouring {
  std::size_t colours = 0;
  std::vector<std::uint32_t> colour_of;  // one per column
  // The state columns use colours 0 .. state_colours - 1 only, so df/dy alone takes
  // state_colours sweeps (parameter columns may share those colours too).
  std::size_t state_colours = 0;
};

// Greedy colouring of the columns of a valid pattern, states first and each block in
// natural order, every column taking the smallest colour not used by a column sharing a
// row with it. Time O(sum over rows of nnz(row)^2), which is O(nnz) for stencils.
//
// Why this order: (1) natural order is optimal on banded patterns, the stencils this is
// for: a tridiagonal matrix gets 3 colours, a bandwidth-w one w; no colouring can use
// fewer colours than the longest row has nonzeros. (2) States before parameters makes
// the state columns' colours a prefix, so df/dy (Newton matrices, VJPs without a
// parameter gradient) skips the sweeps of parameter colours, which for parameters acting
// on every row are one colour each. Largest-first orderings gain little on such patterns
// and would lose (2). Throws std::invalid_argument for a pattern that is not is_valid().
//
// Given the grid a model's states lie on (field-major, models/grid_layout.hpp), the state
// columns are first coloured by lattice: column (field f, point at position x) takes
// f m + (sum_a w_a x_a mod m), the least m and weights valid on every row. A 3-D 7-point
// stencil takes 7 colours so (w = 1, 2, 3; greedy in natural order 12 or 13), a 2-D 5-point
// one 5: Jacobian sweeps cost per colour. It is kept where no colouring could take fewer
// state colours, else where it takes fewer than greedy's; parameters are coloured greedily.
ColumnColouring colour_columns(const SparsityPattern& pattern, const Grid* grid = nullptr);

namespace detail {
// The lattice colouring of a grid model's state columns (models/grid_colouring.cpp).
std::optional<std::vector<std::uint32_t>> lattice_colouring(const SparsityPattern& pattern, const Grid& grid);
}  // namespace detail

}  // namespace backsweep
