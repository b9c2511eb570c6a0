#pragma once
// A config's equations on a grid (ExpressionModel) on the CUDA backend: their kernels
// generated as CUDA (models/cuda_kernel_source.hpp), built at run time by nvcc for this
// GPU into the kernel cache beside the CPU's (platform/native_library.hpp), and run on
// the engine's device vectors (ThrustAlgebra), so fields, parameter fields and checkpoints
// stay on the GPU for the whole sweep. Values only: tangents run on the host model.
// Contraction is off (-fmad=false): sums and products round as the CPU's; functions
// (exp, pow, ...) come from CUDA's library and agree with the host's to round-off.
#include <cuda_runtime.h>

#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "gpu/system.hpp"
#include "models/cuda_kernel_source.hpp"
#include "models/expression_model.hpp"
#include "models/kernel_abi.hpp"
#include "platform/native_library.hpp"

namespace BACKSWEEP_GPU_NAMESPACE {

// nvcc's options for the current GPU: the cache and time limit of `host`'s, the compiler
// $BACKSWEEP_NVCC or the nvcc that built backsweep, code for this GPU's architecture.
inline CompilerOptions cuda_compiler_options(const CompilerOptions& host) {
  int device = 0;
  cudaDeviceProp properties{};
  if (cudaGetDevice(&device) != cudaSuccess || cudaGetDeviceProperties(&properties, device) != cudaSuccess)
    throw NativeLibraryError("no CUDA device to build kernels for");
  CompilerOptions options = host;
  const char* chosen = std::getenv("BACKSWEEP_NVCC");
  options.compiler = chosen && *chosen ? chosen : BACKSWEEP_SYSTEM_NVCC;
  options.flags = {"-std=c++17", "-O3", "-arch=sm_" + std::to_string(properties.major * 10 + properties.minor),
                   "-fmad=false", "-Xcompiler=-fPIC", "-shared", "-w"};
  options.language = "cu";
  return options;
}

// The VJP's kernels (models/cuda_kernel_source.hpp): two passes through buffers, or fused
// (the point's reverse taken again at each neighbour). automatic: fused for point programs
// of at most 8 ops, where arithmetic is cheaper than the buffers' traffic (on an H200,
// bench/equations_cuda.bench.cu: heat and acoustic, of 1 and 3 ops, fused 1.15x the hand
// kernels against 2.1x in two passes; Gray-Scott, of 14, two passes 2.5x against 3.1x).
enum class DeviceVjp { automatic, two_pass, fused };

class DeviceEquationModel {
 public:
  static constexpr std::string_view name = "equations";

  // Builds (or finds in the cache) the CUDA kernels of `model`'s equations on its grid.
  // Throws NativeLibraryError where they cannot be built.
  DeviceEquationModel(const ExpressionModel& model, const CompilerOptions& options,
                      DeviceVjp vjp = DeviceVjp::automatic)
      : fields_(require_grid(model)),
        state_size_(model.state_size()),
        param_size_(model.param_size()),
        library_(NativeLibrary::load(cuda_field_kernel_source(*fields_, model.program()), options)) {
    if (reinterpret_cast<int (*)()>(library_.symbol("bs_abi_version"))() != BACKSWEEP_KERNEL_ABI_VERSION)
      throw NativeLibraryError(library_.file().string() + " was built for another kernel interface");
    rhs_ = reinterpret_cast<decltype(rhs_)>(library_.symbol("bs_cuda_rhs"));
    if (vjp == DeviceVjp::automatic) vjp = model.program().ops.size() <= 8 ? DeviceVjp::fused : DeviceVjp::two_pass;
    vjp_ = reinterpret_cast<decltype(vjp_)>(
        library_.symbol(vjp == DeviceVjp::fused ? "bs_cuda_vjp_fused" : "bs_cuda_vjp"));
    error_ = reinterpret_cast<decltype(error_)>(library_.symbol("bs_cuda_error"));
    const auto scratch = reinterpret_cast<long (*)(const kernel_abi::bs_grid_call*)>(library_.symbol("bs_cuda_vjp_scratch"));

    // The axes' coordinates, then the VJP's scratch, in one device allocation.
    const Grid& grid = fields_->grid();
    std::vector<double> coordinates;
    for (std::size_t a = 0; a < grid.axes(); ++a)
      for (std::size_t i = 0; i < grid.size(a); ++i) coordinates.push_back(grid.coordinate(a, i));
    call_.axes = int(grid.axes());
    call_.points = long(grid.points());
    const std::size_t doubles = coordinates.size() + std::size_t(scratch(&call_));
    double* memory = nullptr;
    check(cudaMalloc(&memory, doubles * sizeof(double)), "allocating the kernels' memory");
    memory_.reset(memory, [](double* p) { cudaFree(p); });
    check(cudaMemcpy(memory, coordinates.data(), coordinates.size() * sizeof(double), cudaMemcpyHostToDevice),
          "copying the grid's coordinates");
    const GridAxes& axes = grid.stencil_axes();
    for (std::size_t a = 0, at = 0; a < grid.axes(); at += grid.size(a), ++a) {
      const GridAxis& x = axes.axis[a];
      call_.axis[a] = {long(x.size), long(x.stride), int(x.boundary), x.inverse_h2, x.half_inverse_h, memory + at};
    }
    call_.scratch = memory + coordinates.size();
  }

  const Grid& grid() const { return fields_->grid(); }
  std::size_t state_size() const { return state_size_; }
  std::size_t param_size() const { return param_size_; }
  double compile_seconds() const { return library_.compile_seconds(); }

  // y, p and dydt in memory the GPU reads (the engine's vectors).
  template <class T>
  void operator()(T t, const T* y, const T* p, T* dydt) const {
    static_assert(std::is_same_v<T, double>, "the device kernels compute values only");
    kernel_abi::bs_grid_call call = call_;
    call.t = t;
    call.y = y;
    call.p = p;
    call.dydt = dydt;
    check(rhs_(&call), "the right-hand side");
  }

  // lambdaᵀ df/dy and lambdaᵀ df/dp (when vjp_p is given), overwritten.
  void vjp(double t, const double* y, const double* p, const double* lambda, double* vjp_y, double* vjp_p) const {
    kernel_abi::bs_grid_call call = call_;
    call.t = t;
    call.y = y;
    call.p = p;
    call.lambda = lambda;
    call.vjp_y = vjp_y;
    call.vjp_p = vjp_p;
    check(vjp_(&call), "the VJP");
  }

 private:
  static std::shared_ptr<const FieldEquations> require_grid(const ExpressionModel& model) {
    if (!model.fields()) throw std::logic_error("DeviceEquationModel: the equations are not on a grid");
    return std::make_shared<const FieldEquations>(*model.fields());
  }
  void check(int code, const char* what) const {
    if (code != 0)
      throw std::runtime_error(std::string("CUDA error in ") + what + ": " +
                               (error_ ? error_(code) : cudaGetErrorString(cudaError_t(code))));
  }

  std::shared_ptr<const FieldEquations> fields_;
  std::size_t state_size_, param_size_;
  NativeLibrary library_;
  std::shared_ptr<double> memory_;  // coordinates and scratch, on the GPU
  kernel_abi::bs_grid_call call_{};
  int (*rhs_)(const kernel_abi::bs_grid_call*) = nullptr;
  int (*vjp_)(const kernel_abi::bs_grid_call*) = nullptr;
  const char* (*error_)(int) = nullptr;
};

}  // namespace BACKSWEEP_GPU_NAMESPACE
