#pragma once
// How a program's results depend on time and the state, read off its instructions: what
// tells implicit steppers that df/dy is one matrix for the whole run (a linear PDE, say
// div_grad(k, u) - c*u), so they assemble it and build its preconditioner once instead of
// every step.
//
// The kinds form a chain, each containing the one before: `constant` (the parameters,
// the coordinates, constants), `time` (t too), `affine` (a + B y with B constant: only
// the offset a may depend on t), `nonlinear` (anything else, a branch on the state among
// them). The analysis is structural and conservative: u*u - u*u is nonlinear to it.
#include <cstddef>
#include <cstdint>
#include <functional>

#include "models/expression_program.hpp"

namespace backsweep::detail {

enum class Dependence : std::uint8_t { constant, time, affine, nonlinear };

// The kind of the program's outputs taken together (the widest), given the kind of each
// caller variable: input(segment, offset).
Dependence output_dependence(const ExpressionProgram& program,
                             const std::function<Dependence(std::size_t segment, std::uint32_t offset)>& input);

}  // namespace backsweep::detail
