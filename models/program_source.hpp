#pragma once
// ProgramSource: C++ statements computing what an ExpressionProgram computes on doubles
// (run) and what its reverse adds (reverse), for kernels compiled at run time
// (compiled_kernel.hpp). Each op becomes one statement with the same operations in the
// same order as the interpreter's, so with contraction off (-ffp-contract=off) a compiled
// point computes the interpreter's values bitwise; its reverse skips an op whose adjoint
// is exactly zero, as the interpreter does, so NaN partials only show where something
// flows.
//
// The caller names where operands lie: the text of variable i of segment s, and of its
// adjoint (a local it declares and later uses), or nothing where that adjoint is not
// wanted.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "models/expression_program.hpp"

namespace backsweep::detail {

// A double as a C++ literal that reads back to the same bits (hexadecimal), infinities
// and NaN included.
std::string double_literal(double value);

struct ProgramSource {
  // The text of variable `index` of caller segment `segment`, and of its adjoint
  // ("" where not wanted).
  std::function<std::string(std::size_t segment, std::uint32_t index)> variable, adjoint;
  // Optional: whether the partials of op `op` into segment `segment` are added elsewhere
  // by the caller (and left out here).
  std::function<bool(std::size_t op, std::size_t segment)> elsewhere;

  // Statements declaring v<i> = the value of op i; an op writing output d also stores it
  // into output(d) (skipped where output is empty).
  std::string run(const ExpressionProgram& program, const std::function<std::string(std::uint32_t)>& output) const;

  // Statements, after run(): declare g<i>, the adjoint of op i, take output d's adjoint
  // from output_adjoint(d), and add each op's partials into its operands' adjoints,
  // walking the ops backward. Unguarded, an op whose adjoint is zero adds its partials
  // times zero: the same sums (up to the sign of a zero) wherever every partial is finite,
  // and a NaN in some adjoint where one is not; callers then take the guarded reverse.
  std::string reverse(const ExpressionProgram& program, const std::function<std::string(std::uint32_t)>& output_adjoint,
                      bool guarded = true) const;
};

}  // namespace backsweep::detail
