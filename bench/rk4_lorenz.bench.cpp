// RK4 on Lorenz-63: the generic stepper and integrate loop (model called through the
// Model concept, tableau as data, vector operations through the CPU algebra) against the
// same loop written by hand in plain C++. The ratio of their steps per second is the cost
// of the abstraction.
//   build/bench/bench_rk4_lorenz --benchmark_min_time=1
#include <benchmark/benchmark.h>

#include <array>

#include "models/builtin/lorenz63.hpp"
#include "solvers/explicit_rk.hpp"
#include "solvers/integrate.hpp"

namespace {

constexpr int kSteps = 100'000;
constexpr double kStep = 1e-4;

void BM_Rk4ThroughConcept(benchmark::State& state) {
  const backsweep::models::Lorenz63 model;
  backsweep::ExplicitRK stepper(model, backsweep::tableaux::rk4);
  backsweep::IntegrateOptions options;
  options.t1 = kSteps * kStep;
  options.step = kStep;
  for (auto _ : state) {
    std::array<double, 3> y{1.0, 1.0, 1.0};
    const auto result = backsweep::integrate(stepper, y.data(), model.default_params.data(), options);
    benchmark::DoNotOptimize(y);
    if (result.steps != kSteps) state.SkipWithError("wrong step count");
  }
  state.SetItemsProcessed(state.iterations() * kSteps);
}
void lorenz(const double* y, const double* p, double* f) {
  f[0] = p[0] * (y[1] - y[0]);
  f[1] = y[0] * (p[1] - y[2]) - y[1];
  f[2] = y[0] * y[1] - p[2] * y[2];
}

void BM_Rk4ByHand(benchmark::State& state) {
  const double p[3] = {10.0, 28.0, 8.0 / 3.0};
  for (auto _ : state) {
    double y[3] = {1.0, 1.0, 1.0}, k1[3], k2[3], k3[3], k4[3], tmp[3];
    const double h = kStep;
    for (int n = 0; n < kSteps; ++n) {
      lorenz(y, p, k1);
      for (int i = 0; i < 3; ++i) tmp[i] = y[i] + 0.5 * h * k1[i];
      lorenz(tmp, p, k2);
      for (int i = 0; i < 3; ++i) tmp[i] = y[i] + 0.5 * h * k2[i];
      lorenz(tmp, p, k3);
      for (int i = 0; i < 3; ++i) tmp[i] = y[i] + h * k3[i];
      lorenz(tmp, p, k4);
      for (int i = 0; i < 3; ++i) y[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
    }
    benchmark::DoNotOptimize(y);
  }
  state.SetItemsProcessed(state.iterations() * kSteps);
}

}  // namespace

BENCHMARK(BM_Rk4ThroughConcept)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Rk4ByHand)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
