#include "models/cuda_kernel_source.hpp"

#include "models/detail/kernel_prelude.hpp"
#include "models/field_point_source.hpp"
#include "models/kernel_abi.hpp"

namespace backsweep {

namespace {

std::string str(std::size_t value) { return std::to_string(value); }

// Where point q lies: its neighbours along each axis and its coordinates; true where it
// may lie at a wall. Indices in 32 bits where the grid allows (64-bit division is slow).
constexpr const char* kLocate = R"(__device__ __forceinline__ bool locate(const bs_grid_call& c, long q, Side* lo, Side* hi,
                                       double* coord, double& cx) {
  const bool narrow = c.points < (1L << 32);
#pragma unroll
  for (int a = 0; a <= X; ++a) {
    const long i = narrow ? long(unsigned(q) / unsigned(c.axis[a].stride) % unsigned(c.axis[a].size))
                          : q / c.axis[a].stride % c.axis[a].size;
    lo[a] = side_of(c.axis[a], i, false);
    hi[a] = side_of(c.axis[a], i, true);
    if (a < X) coord[a] = c.axis[a].coordinate[i];
    else cx = c.axis[a].coordinate[i];
  }
  return at_wall(lo, hi, X + 1);
}
)";

constexpr const char* kPointPrologue = R"(  const long q = long(blockIdx.x) * blockDim.x + threadIdx.x;
  if (q >= c.points) return;
  Side lo[3], hi[3];
  double coord[3] = {0.0, 0.0, 0.0}, cx = 0.0;
  const bool W = locate(c, q, lo, hi, coord, cx);
)";

// Sums in an order fixed by n alone: block b adds its chunk, its threads strided, then
// the threads' sums by warps (in a tree) and the warps' in order. block_sum's result is
// thread 0's.
constexpr const char* kSums = R"(
__device__ __forceinline__ double block_sum(double value, double* part) {
  for (int w = 16; w > 0; w /= 2) value += __shfl_down_sync(0xffffffffu, value, w);
  if (threadIdx.x % 32 == 0) part[threadIdx.x / 32] = value;
  __syncthreads();
  double sum = 0.0;
  if (threadIdx.x == 0)
    for (int k = 0; k < kThreads / 32; ++k) sum += part[k];
  __syncthreads();
  return sum;
}
__global__ void __launch_bounds__(kThreads) sum_kernel(const double* terms, long n, long chunk, double* sums) {
  __shared__ double part[kThreads];
  const long first = long(blockIdx.x) * chunk, last = first + chunk < n ? first + chunk : n;
  double s = 0.0;
  for (long i = first + threadIdx.x; i < last; i += kThreads) s += terms[i];
  s = block_sum(s, part);
  if (threadIdx.x == 0) sums[blockIdx.x] = s;
}
long blocks_of(long n) { return (n + kThreads - 1) / kThreads; }
long sum_blocks(long n) { return blocks_of(n) < 1024 ? blocks_of(n) : 1024; }
)";

std::string both_ways(const std::string& call, const std::string& walls = "W", const std::string& indent = "  ") {
  const auto with = [&](const char* w) {
    std::string text = call;
    text.replace(text.find("<W>"), 3, w);
    return text;
  };
  return indent + "if (" + walls + ") " + with("<true>") + "\n" + indent + "else " + with("<false>") + "\n";
}

// The two-pass VJP's kernels: each point's reverse into buffers for the grid, then the gather.
std::string two_pass_kernels(std::size_t buffers, std::size_t scalars) {
  std::string sums, arguments, stores;
  for (std::size_t k = 0; k < scalars; ++k) {
    sums += "  double ap" + str(k) + " = 0.0;\n";
    arguments += ", ap" + str(k);
    stores += "  c.scratch[" + str(buffers + k) + " * c.points + q] = ap" + str(k) + ";\n";
  }
  std::string text = "__global__ void __launch_bounds__(kThreads) adjoints_kernel(const bs_grid_call c) {\n";
  text += kPointPrologue + sums +
          both_ways("vjp_point<W>(c, q, lo, hi, coord, cx, c.p, c.scratch, c.points, q" + arguments + ");") + stores +
          "}\n";
  text += "__global__ void __launch_bounds__(kThreads) gather_kernel(const bs_grid_call c) {\n";
  text += kPointPrologue +
          both_ways("gather_point<W>(c, q, lo, hi, c.scratch, c.scratch + lo[0].off, c.scratch + hi[0].off, c.points, q);") +
          "}\n";
  return text;
}

// The fused VJP's kernel: each thread takes the reverse at its point and at its neighbours
// (buffers of one point each, in registers), gathers, and its block sums the scalar
// parameters' adjoints into partial[k * blocks + block].
std::string fused_kernel(std::size_t buffers, std::size_t scalars, std::size_t axes) {
  std::string sums, arguments, dummies, dummy_arguments, stores;
  for (std::size_t k = 0; k < scalars; ++k) {
    sums += "  double ap" + str(k) + " = 0.0;\n";
    arguments += ", ap" + str(k);
    dummies += "      double d" + str(k) + " = 0.0;\n";
    dummy_arguments += ", d" + str(k);
    stores += "  ap" + str(k) + " = block_sum(ap" + str(k) + ", part);\n  if (threadIdx.x == 0) partial[" + str(k) +
              " * gridDim.x + blockIdx.x] = ap" + str(k) + ";\n";
  }
  const std::string B = str(buffers), N = str(2 * axes);
  return "__global__ void __launch_bounds__(kThreads) fused_vjp_kernel(const bs_grid_call c, double* partial) {\n"
         "  __shared__ double part[kThreads];\n  (void)part; (void)partial;\n"
         "  const long q = long(blockIdx.x) * blockDim.x + threadIdx.x;\n" + sums +
         "  if (q < c.points) {\n    Side lo[3], hi[3];\n    double coord[3] = {0.0, 0.0, 0.0}, cx = 0.0;\n"
         "    const bool W = locate(c, q, lo, hi, coord, cx);\n    double Gc[" + B + "], G[" + N + "][" + B + "];\n" +
         both_ways("vjp_point<W>(c, q, lo, hi, coord, cx, c.p, Gc, 1, 0" + arguments + ");", "W", "    ") +
         "    const double* Gn[" + N + "];\n#pragma unroll\n    for (int s = 0; s < " + N + R"(; ++s) {
      const long r = q + (s % 2 ? hi[s / 2] : lo[s / 2]).off;
      Side lo_r[3], hi_r[3];
      double coord_r[3] = {0.0, 0.0, 0.0}, cx_r = 0.0;
)" + dummies + "      const bool W_r = locate(c, r, lo_r, hi_r, coord_r, cx_r);\n" +
         both_ways("vjp_point<W>(c, r, lo_r, hi_r, coord_r, cx_r, c.p, G[s], 1, 0" + dummy_arguments + ");", "W_r",
                   "      ") +
         "      Gn[s] = G[s];\n    }\n" + both_ways("gather_local<W>(c, q, lo, hi, Gc, Gn);", "W", "    ") + "  }\n" +
         stores + "}\n";
}

std::string kernels(const FieldEquations& fields) {
  const std::size_t buffers = detail::field_vjp_buffers(fields), scalars = fields.scalar_parameters();
  std::string text = std::string(kLocate) + kSums;
  text += "__global__ void __launch_bounds__(kThreads) rhs_kernel(const bs_grid_call c) {\n";
  text += kPointPrologue + both_ways("rhs_point<W>(c, q, lo, hi, coord, cx, c.p);") + "}\n";
  return text + two_pass_kernels(buffers, scalars) + fused_kernel(buffers, scalars, fields.grid().axes());
}

std::string launchers(const FieldEquations& fields) {
  const std::string buffers = str(detail::field_vjp_buffers(fields)), scalars = str(fields.scalar_parameters());
  return R"(extern "C" {
int bs_abi_version(void) { return )" + str(BACKSWEEP_KERNEL_ABI_VERSION) + R"(; }
const char* bs_cuda_error(int code) { return cudaGetErrorString(cudaError_t(code)); }
long bs_cuda_vjp_scratch(const bs_grid_call* call) {
  const long n = call->points;
  return ()" + buffers + " + " + scalars + ") * n + " + scalars + R"( * (sum_blocks(n) > blocks_of(n) ? sum_blocks(n) : blocks_of(n));
}
// A launcher returns when its kernels are done, as Thrust's algorithms do: the engine's
// host code may then read what they wrote.
static int finished() {
  const cudaError_t launched = cudaGetLastError();
  return int(launched != cudaSuccess ? launched : cudaStreamSynchronize(0));
}
int bs_cuda_rhs(const bs_grid_call* call) {
  rhs_kernel<<<blocks_of(call->points), kThreads>>>(*call);
  return finished();
}
int bs_cuda_vjp(const bs_grid_call* call) {
  const long n = call->points;
  adjoints_kernel<<<blocks_of(n), kThreads>>>(*call);
  gather_kernel<<<blocks_of(n), kThreads>>>(*call);
  if (call->vjp_p) {
    const long blocks = sum_blocks(n), chunk = (n + blocks - 1) / blocks;
    double* const partial = call->scratch + ()" + buffers + " + " + scalars + R"() * n;
    for (int k = 0; k < )" + scalars + R"(; ++k) {
      sum_kernel<<<blocks, kThreads>>>(call->scratch + ()" + buffers + R"( + k) * n, n, chunk, partial + k * blocks);
      sum_kernel<<<1, kThreads>>>(partial + k * blocks, blocks, blocks, call->vjp_p + k);
    }
  }
  return finished();
}
int bs_cuda_vjp_fused(const bs_grid_call* call) {
  const long blocks = blocks_of(call->points);
  fused_vjp_kernel<<<blocks, kThreads>>>(*call, call->scratch);
  if (call->vjp_p)
    for (int k = 0; k < )" + scalars + R"(; ++k)
      sum_kernel<<<1, kThreads>>>(call->scratch + k * blocks, blocks, blocks, call->vjp_p + k);
  return finished();
}
}
)";
}

}  // namespace

std::string cuda_field_kernel_source(const FieldEquations& fields, const detail::ExpressionProgram& program) {
  std::string text = "// generated by backsweep from a grid model's equations, for CUDA\n#include <cmath>\n"
                     "#include <cuda_runtime.h>\n#define BS_INLINE __device__ __forceinline__\n"
                     "// Every input and every op's value is declared, read or not (nvcc drops the unread).\n"
                     "#pragma nv_diag_suppress 177\n#pragma nv_diag_suppress 550\n";
  text += "extern \"C\" {\n" + std::string(kernel_abi::kKernelAbiSource) + "\n}\n" + detail::kKernelPrelude;
  text += "namespace {\nconstexpr int X = " + str(fields.grid().axes() - 1) + ";\nconstexpr int kThreads = 256;\n";
  text += detail::field_point_functions(fields, program, false) + kernels(fields);
  return text + "}  // namespace\n" + launchers(fields);
}

}  // namespace backsweep
