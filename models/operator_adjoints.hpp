#pragma once
// What a VJP in one pass needs to know of each stencil operator in a grid model's point
// program (FieldEquations' segments: 0 t, 1 fields, 2 scalar parameters, 3 parameter
// fields, 4 operators, 5 coordinates).
//
// A point's adjoint gathers what its neighbours' operators owe it: the operator's adjoint
// at each neighbour. Where that adjoint depends only on what lies at the neighbour itself
// (t, the fields, scalar parameters, parameter fields and λ there; no operator's value,
// no coordinate), the neighbour's share is recomputed from the program there, and no
// buffer is needed. Where an operator's only use is `parameter × operator` (D1*lap(u)),
// the parameter's adjoint Σ g·L(u) is Σ u·Lᵀ(g), g that product's adjoint: the
// transpose the gather takes anyway, so the operator need not be evaluated at all.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "models/expression_program.hpp"

namespace backsweep::detail {

struct ScaledOperator {
  std::size_t op;           // the program's op computing parameter × operator
  std::uint32_t parameter;  // the scalar parameter
};

struct OperatorAdjoint {
  bool local = false;                   // its adjoint depends only on what lies at the point
  std::optional<ScaledOperator> scaled;  // its only use, where that is parameter × operator
};

// One entry per operator (segment 4 of the program).
std::vector<OperatorAdjoint> operator_adjoints(const ExpressionProgram& program, std::size_t operators);

}  // namespace backsweep::detail
