// Compiled by nvcc (no GPU needed to compile): the stepper, its reverse, the integrate
// loop and the CPU algebra build as CUDA C++, and the vector operations the algebra runs
// (the seam a Thrust backend plugs into) run inside a kernel, one thread a component.
#include "adjoint/discrete_adjoint.hpp"
#include "models/builtin/lorenz63.hpp"
#include "solvers/algebra.hpp"
#include "solvers/explicit_rk.hpp"
#include "solvers/integrate.hpp"
#include "solvers/method.hpp"
#include "solvers/vector_operations.hpp"

template <class Operation>
__global__ void for_each_kernel(std::size_t n, Operation op) {
  const std::size_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) op(i);
}

// A stage combination y + h (a_1 k_1 + a_2 k_2) and an axpy, as a device algebra would run them.
void combine_on_device(std::size_t n, const double* y, const double* slopes, const double* a,
                       double h, double* out) {
  for_each_kernel<<<(n + 255) / 256, 256>>>(
      n, backsweep::detail::WeightedSum<double>{y, slopes, n, a, 2, h, out});
  for_each_kernel<<<(n + 255) / 256, 256>>>(n, backsweep::detail::Axpy<double>{0.5, y, out});
}

// The host side compiled by nvcc: a step, its reverse, an integration and a gradient.
double host_side() {
  const backsweep::models::Lorenz63 model;
  backsweep::ExplicitRK stepper(model, backsweep::tableaux::dopri5);
  double y[3] = {1, 1, 1}, next[3], lambda[3] = {0, 0, 1}, mu[3];
  const double* p = model.default_params.data();
  stepper.step({0.0, 0.01, 0.01}, y, p, next);
  stepper.reverse({0.0, 0.01, 0.01}, y, p, lambda, mu);
  backsweep::IntegrateOptions options;
  options.t1 = 0.1;
  backsweep::integrate(stepper, y, p, options);
  return y[0] + lambda[0] + mu[0];
}
