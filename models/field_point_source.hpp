#pragma once
// The C++ text of one grid point's work, generated from a grid model's equations
// (FieldEquations and the point program), shared by the kernels built from them for the
// CPU (field_kernel_source.hpp) and for CUDA (cuda_kernel_source.hpp):
//
//   rhs_point<W>       the point's rates, as FieldEquations::run computes them (bitwise);
//   vjp_point<W>       the program's reverse at the point, guarded as the interpreter's:
//                      each operator's adjoint, then the fields' and the parameter fields'
//                      own, into the buffers G (buffer b of point j at G[b * P + j]), and
//                      the scalar parameters' adjoints added into ap<k>;
//   vjp_point_fast<W>  the same unguarded, raising `bad` where an adjoint is not finite;
//   gather_point<W>    a point's adjoints: its own plus what its neighbours' operators owe
//                      it, through the operators' exact transposes written as gathers
//                      (models/stencil.hpp), from the buffers of its slab (Gc) and of its
//                      neighbours' slabs along the outermost axis (Gl, Gh);
//   gather_local<W>    the same from buffers of one point each: the point's (Gc) and its
//                      neighbours' (Gn[2 * axis] below, Gn[2 * axis + 1] above);
//
// or, for the CPU where every operator's adjoint at a point is had from that point alone
// (operator_adjoints.hpp), a VJP in one pass with no buffers:
//
//   vjp_once<W>, vjp_once_fast<W>   the point's reverse, then its gather, each neighbour's
//                      operator adjoint recomputed there (operator_adjoint_<s>), guarded
//                      and unguarded as above; a stencil whose only use is a scalar
//                      parameter's product takes that parameter's adjoint as Σ u·Lᵀ(g).
//
// W: the point may lie at a wall. The text needs the prelude (detail/kernel_prelude.hpp),
// with BS_INLINE saying how a point function compiles (inline host or device code), and
// `constexpr int X` (the innermost axis) before it.
#include <cstddef>
#include <string>

#include "models/expression_program.hpp"
#include "models/field_equations.hpp"

namespace backsweep::detail {

// rhs_point; for the CPU the one-pass functions, else vjp_point, vjp_point_fast and
// gather_point; elsewhere vjp_point, gather_point and gather_local.
std::string field_point_functions(const FieldEquations& fields, const ExpressionProgram& program, bool for_cpu);

// Whether the CPU's VJP runs in one pass (vjp_once), else through the slab buffers.
bool field_vjp_in_one_pass(const FieldEquations& fields, const ExpressionProgram& program);

// The buffers vjp_point fills: one per operator, field and parameter field.
inline std::size_t field_vjp_buffers(const FieldEquations& fields) {
  return fields.operators().size() + fields.fields().size() + fields.parameter_fields().size();
}

}  // namespace backsweep::detail
