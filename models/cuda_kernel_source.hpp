#pragma once
// The CUDA source of a grid model's kernels, generated from its equations: the same point
// functions as the CPU's (field_point_source.hpp), one GPU thread a point, behind host
// launchers a library built at run time by nvcc exports (gpu/equations_device.hpp):
//
//   int bs_cuda_rhs(const bs_grid_call*)           dydt = f(t, y, p)
//   int bs_cuda_vjp(const bs_grid_call*)           vjp_y = λᵀ df/dy, vjp_p = λᵀ df/dp, in two passes
//   int bs_cuda_vjp_fused(const bs_grid_call*)     the same in one
//   long bs_cuda_vjp_scratch(const bs_grid_call*)  the doubles of device memory bs_cuda_vjp
//                                                  needs in `scratch`
//   const char* bs_cuda_error(int)                 what a launcher's nonzero result means
//   int bs_abi_version(void)
//
// Every array of the call, the axes' coordinates included, lies in memory the GPU reads.
// The launchers run their kernels on the default stream and return when they are done
// (as Thrust's algorithms do), with CUDA's error code or 0. The two VJPs gather, so no
// two threads write one place: in two passes, as the CPU's does slab by slab (each point's
// reverse fills buffers for the whole grid: each operator's adjoint, the fields' own; then
// each point gathers from its buffers and its neighbours'), or fused (each thread takes the
// reverse at its point and again at each neighbour, in registers, then gathers: more
// arithmetic, no buffers). The scalar parameters' adjoints are summed in an order fixed by
// the grid's size alone (blocks of points, then the blocks in order): every run agrees
// bitwise.
#include <string>

#include "models/expression_program.hpp"
#include "models/field_equations.hpp"

namespace backsweep {

std::string cuda_field_kernel_source(const FieldEquations& fields, const detail::ExpressionProgram& program);

}  // namespace backsweep
