#pragma once
// CompiledFieldKernel: a grid model's equations as native code, built at run time from
// their point program (field_kernel_source.hpp) by the system compiler and cached
// (platform/native_library.hpp). Its right-hand side is the interpreter's bitwise; its VJP
// agrees with the interpreter's to round-off (it gathers where the interpreter scatters),
// and gives the same bits on any number of threads.
#include <cstddef>
#include <vector>

#include "models/expression_program.hpp"
#include "models/field_equations.hpp"
#include "models/kernel_abi.hpp"
#include "platform/native_library.hpp"

namespace backsweep {

class CompiledFieldKernel {
 public:
  // Builds (or finds in the cache) the kernels of `program` on `fields`, to run on
  // `threads` OpenMP threads (0: as many as OpenMP gives, OMP_NUM_THREADS or the cores).
  // Throws NativeLibraryError where they cannot be built.
  CompiledFieldKernel(const FieldEquations& fields, const detail::ExpressionProgram& program,
                      const CompilerOptions& options, int threads = 1);

  void rhs(double t, const double* y, const double* p, double* dydt) const;
  // vjp_y and vjp_p (may be null) are overwritten; scratch is resized as needed.
  void vjp(std::vector<double>& scratch, double t, const double* y, const double* p, const double* lambda,
           double* vjp_y, double* vjp_p) const;

  double compile_seconds() const { return library_.compile_seconds(); }

 private:
  NativeLibrary library_;
  std::vector<std::vector<double>> coordinates_;  // per axis
  kernel_abi::bs_grid_call call_{};                // the grid; the arrays are set per call
  void (*rhs_)(const kernel_abi::bs_grid_call*) = nullptr;
  void (*vjp_)(const kernel_abi::bs_grid_call*) = nullptr;
  long (*scratch_size_)(const kernel_abi::bs_grid_call*) = nullptr;
};

}  // namespace backsweep
