#pragma once
// What a kernel compiled at run time (compiled_kernel.hpp) is called with: plain C structs,
// defined once here and pasted as text into every generated source, so the caller and the
// library it loads agree field by field.
#define BACKSWEEP_KERNEL_ABI(...) __VA_ARGS__                                                          \
  inline constexpr const char* kKernelAbiSource = #__VA_ARGS__;
#define BACKSWEEP_KERNEL_ABI_VERSION 1

namespace backsweep::kernel_abi {

BACKSWEEP_KERNEL_ABI(
    struct bs_axis {
      long size, stride;
      int boundary; /* 0 periodic, 1 dirichlet, 2 neumann */
      double inverse_h2, half_inverse_h;
      const double* coordinate; /* size values */
    };
    struct bs_grid_call {
      int axes;
      struct bs_axis axis[3];
      long points;
      int threads; /* OpenMP threads: 1 the calling thread alone, 0 as many as OpenMP gives */
      double t;
      const double* y;
      const double* p;
      double* dydt;
      const double* lambda;
      double* vjp_y;
      double* vjp_p; /* null: the parameters' adjoint is not wanted */
      double* scratch; /* bs_vjp_scratch(call) doubles */
    };)

}  // namespace backsweep::kernel_abi
