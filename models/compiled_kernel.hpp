#pragma once
// A model's equations as native code, built at run time from their program by the system
// compiler and cached (platform/native_library.hpp):
//   CompiledFieldKernel  equations on a grid (field_kernel_source.hpp): the right-hand side
//                        the interpreter's bitwise; the VJP to round-off (it gathers where
//                        the interpreter scatters), the same bits on any number of threads;
//   CompiledOdeKernel    an ODE's (ode_kernel_source.hpp): both the interpreter's bitwise.
#include <cstddef>
#include <vector>

#include "models/expression_program.hpp"
#include "models/field_equations.hpp"
#include "models/kernel_abi.hpp"
#include "platform/native_library.hpp"

namespace backsweep {

class CompiledKernel {
 public:
  virtual ~CompiledKernel() = default;
  virtual void rhs(double t, const double* y, const double* p, double* dydt) const = 0;
  // vjp_y and vjp_p (may be null) are overwritten; scratch is resized as needed.
  virtual void vjp(std::vector<double>& scratch, double t, const double* y, const double* p, const double* lambda,
                   double* vjp_y, double* vjp_p) const = 0;

  double compile_seconds() const { return library_.compile_seconds(); }

 protected:
  // Throws NativeLibraryError where the library was built for another kernel interface.
  explicit CompiledKernel(NativeLibrary library);
  NativeLibrary library_;
};

class CompiledFieldKernel final : public CompiledKernel {
 public:
  // Builds (or finds in the cache) the kernels of `program` on `fields`, to run on
  // `threads` OpenMP threads (0: as many as OpenMP gives, OMP_NUM_THREADS or the cores).
  // Throws NativeLibraryError where they cannot be built.
  CompiledFieldKernel(const FieldEquations& fields, const detail::ExpressionProgram& program,
                      const CompilerOptions& options, int threads = 1);

  void rhs(double t, const double* y, const double* p, double* dydt) const override;
  // Leaves the scalar parameters' sums over each x row in scratch: row r's at
  // [r * scalars, (r + 1) * scalars).
  void vjp(std::vector<double>& scratch, double t, const double* y, const double* p, const double* lambda,
           double* vjp_y, double* vjp_p) const override;

  // The same kernels on `count` planes of the grid's outermost axis from plane `first`
  // (wrapping around the grid, as on a periodic axis), as a grid of their own: the
  // whole grid's coordinates there, its boundary at their ends. A block of a split grid,
  // and the windows by its cuts, run on them (models/equations_block.hpp).
  CompiledFieldKernel on_planes(std::size_t first, std::size_t count) const;

 private:
  kernel_abi::bs_grid_call call() const;  // call_, pointing at this object's coordinates

  std::vector<std::vector<double>> coordinates_;  // per axis
  kernel_abi::bs_grid_call call_{};                // the grid; the arrays are set per call
  void (*rhs_)(const kernel_abi::bs_grid_call*) = nullptr;
  void (*vjp_)(const kernel_abi::bs_grid_call*) = nullptr;
  long (*scratch_size_)(const kernel_abi::bs_grid_call*) = nullptr;
};

class CompiledOdeKernel final : public CompiledKernel {
 public:
  // Throws NativeLibraryError where the kernels cannot be built.
  CompiledOdeKernel(const detail::ExpressionProgram& program, std::size_t states, std::size_t parameters,
                    const CompilerOptions& options);

  void rhs(double t, const double* y, const double* p, double* dydt) const override { rhs_(t, y, p, dydt); }
  void vjp(std::vector<double>&, double t, const double* y, const double* p, const double* lambda, double* vjp_y,
           double* vjp_p) const override {
    vjp_(t, y, p, lambda, vjp_y, vjp_p);
  }

 private:
  void (*rhs_)(double, const double*, const double*, double*) = nullptr;
  void (*vjp_)(double, const double*, const double*, const double*, double*, double*) = nullptr;
};

}  // namespace backsweep
