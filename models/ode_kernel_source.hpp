#pragma once
// The C++ source of an ODE's kernels, generated from its equations' program (the state and
// parameters as arrays): what the interpreter computes, op for op, compiled by the system
// compiler (compiled_kernel.hpp). Exported:
//
//   void bs_ode_rhs(double t, const double* y, const double* p, double* dydt)
//   void bs_ode_vjp(double t, const double* y, const double* p, const double* lambda,
//                   double* vjp_y, double* vjp_p)   vjp_p may be null; both overwritten
//   int bs_abi_version(void)
//
// With contraction off the values are the interpreter's bitwise, and the VJP, which adds
// the partials in the interpreter's order, too.
#include <cstddef>
#include <string>

#include "models/expression_program.hpp"

namespace backsweep {

std::string ode_kernel_source(const detail::ExpressionProgram& program, std::size_t states, std::size_t parameters);

}  // namespace backsweep
