// Compiled by nvcc (no GPU needed to compile): Dual numbers and a built-in model inside a
// CUDA kernel, one thread per ensemble member computing a Jacobian-vector product.
#include "models/builtin/lorenz63.hpp"
#include "models/dual.hpp"

__global__ void lorenz_jvp(const double* states, const double* directions, const double* params,
                           double* out, int count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  using D = backsweep::Dual<double, 1>;
  D y[3], p[3], f[3];
  for (int k = 0; k < 3; ++k) {
    y[k] = D(states[3 * i + k]);
    y[k].d[0] = directions[3 * i + k];
    p[k] = D(params[k]);
  }
  backsweep::models::Lorenz63{}(D(0.0), y, p, f);
  for (int k = 0; k < 3; ++k) out[3 * i + k] = f[k].d[0];
}
