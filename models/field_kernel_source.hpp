#pragma once
// The C++ source of a grid model's kernels, generated from its equations (FieldEquations and
// the point program): a right-hand side and a VJP over the whole grid, row by row, for the
// system compiler to turn into vectorised native code (compiled_kernel.hpp). Exported:
//
//   void bs_rhs(const bs_grid_call*)            dydt = f(t, y, p)
//   void bs_vjp(const bs_grid_call*)            vjp_y = λᵀ df/dy, vjp_p = λᵀ df/dp
//   long bs_vjp_scratch(const bs_grid_call*)    the doubles bs_vjp's scratch must hold
//   int bs_abi_version(void)
//
// Each point computes what the interpreter (FieldEquations::run) computes, in the same
// order: its fields and operators bitwise. The VJP gathers: each point adds what its
// neighbours' operators owe it, through the operators' exact transposes written as gathers
// (models/stencil.hpp). Where every operator's adjoint at a point comes from that point's
// inputs alone (operator_adjoints.hpp: D1*lap(u), div_grad(k, u), c^2*lap(p)), it runs in
// one pass, row by row, recomputing those adjoints at the neighbours; else slab by slab
// (the points of one index of the outermost axis): the point program and its reverse fill
// a slab's buffer with each operator's adjoint at each point, and the gather reads the
// buffers of the slab and the two beside it. Either way no two points write one place,
// each adjoint is written once, and rows or slabs may run on any number of threads. The reverse runs unguarded (no masks) and a row is taken again guarded, as the
// interpreter's, where an adjoint came out NaN or infinite. The scalar parameters'
// adjoints are summed per row, then over rows in order: the same bits on any thread count.
#include <string>

#include "models/expression_program.hpp"
#include "models/field_equations.hpp"

namespace backsweep {

std::string field_kernel_source(const FieldEquations& fields, const detail::ExpressionProgram& program);

}  // namespace backsweep
