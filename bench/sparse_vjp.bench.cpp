// Cost of a sparse VJP (SparseJacobian: Curtis-Powell-Reid colouring, one Dual sweep of
// all colours, then lambdaᵀJ over the nonzeros) relative to one right-hand side, on
// Diffusion1D at n = 10^3 .. 10^6. It has 5 colours (3 for the tridiagonal states, one
// each for D and k), so one model call on Dual<double, 5> per VJP at every n, and 3
// lanes without the parameter gradient. The Dual calls alone (BM_Dual5Rhs, BM_Dual3Rhs)
// are what the sweeps cannot go below; the rest is copying y in and reading the
// nonzeros. The dense Dual VJP at n = 10^3 shows what the colouring saves (O(n^2)).
// Times are CPU times, so another process on the machine distorts them less.
//   build/bench/bench_sparse_vjp --benchmark_min_time=0.3 --benchmark_repetitions=3
#include <benchmark/benchmark.h>

#include <cstdio>
#include <string>
#include <vector>

#include "bench/time_keeper.hpp"
#include "models/builtin/diffusion_1d.hpp"
#include "models/derivatives.hpp"
#include "models/sparse_jacobian.hpp"

namespace {

using backsweep::models::Diffusion1D;

struct Problem {
  explicit Problem(std::size_t n)
      : model(n), y(model.default_initial()), lambda(n), f(n), vjp_y(n) {
    for (std::size_t i = 0; i < n; ++i) lambda[i] = 1.0 + 1e-3 * double(i % 17);
  }
  Diffusion1D model;
  std::vector<double> y, lambda, f, vjp_y;
  double p[2] = {1.0, 0.5}, vjp_p[2] = {};
};

void BM_Rhs(benchmark::State& state) {
  Problem problem(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) {
    benchmark::DoNotOptimize(problem.y.data());
    problem.model(0.0, problem.y.data(), problem.p, problem.f.data());
    benchmark::ClobberMemory();
  }
}

// One model call on Dual<double, L> alone: what a sweep of L colours cannot go below.
template <int L>
void dual_rhs(benchmark::State& state) {
  using D = backsweep::Dual<double, L>;
  Problem problem(static_cast<std::size_t>(state.range(0)));
  const std::size_t n = problem.y.size();
  std::vector<D> y(n), f(n);
  for (std::size_t i = 0; i < n; ++i) y[i] = D::variable(problem.y[i], int(i % 3));
  const D p[2] = {D(problem.p[0]), D(problem.p[1])};
  for (auto _ : state) {
    benchmark::DoNotOptimize(y.data());
    problem.model(D(0.0), y.data(), p, f.data());
    benchmark::ClobberMemory();
  }
}
void BM_Dual5Rhs(benchmark::State& state) { dual_rhs<5>(state); }
void BM_Dual3Rhs(benchmark::State& state) { dual_rhs<3>(state); }

// vjp_p given: all 5 colours. Null: the 3 state colours only.
template <bool WithParameters>
void sparse_vjp(benchmark::State& state) {
  Problem problem(static_cast<std::size_t>(state.range(0)));
  backsweep::SparseJacobian jacobian(problem.model);
  for (auto _ : state) {
    benchmark::DoNotOptimize(problem.y.data());
    jacobian.vjp(0.0, problem.y.data(), problem.p, problem.lambda.data(), problem.vjp_y.data(),
                 WithParameters ? problem.vjp_p : nullptr);
    benchmark::ClobberMemory();
  }
  state.counters["calls_per_vjp"] =
      double(jacobian.model_evaluations()) / double(state.iterations());
}
void BM_SparseVjp(benchmark::State& state) { sparse_vjp<true>(state); }
void BM_SparseVjpStatesOnly(benchmark::State& state) { sparse_vjp<false>(state); }

void BM_DenseVjp(benchmark::State& state) {
  Problem problem(static_cast<std::size_t>(state.range(0)));
  backsweep::Derivatives derivatives(problem.model);
  for (auto _ : state) {
    benchmark::DoNotOptimize(problem.y.data());
    derivatives.derived_vjp(0.0, problem.y.data(), problem.p, problem.lambda.data(),
                            problem.vjp_y.data(), problem.vjp_p);
    benchmark::ClobberMemory();
  }
}

}  // namespace

BENCHMARK(BM_Rhs)->RangeMultiplier(10)->Range(1000, 1'000'000);
BENCHMARK(BM_Dual5Rhs)->RangeMultiplier(10)->Range(1000, 1'000'000);
BENCHMARK(BM_Dual3Rhs)->RangeMultiplier(10)->Range(1000, 1'000'000);
BENCHMARK(BM_SparseVjp)->RangeMultiplier(10)->Range(1000, 1'000'000);
BENCHMARK(BM_SparseVjpStatesOnly)->RangeMultiplier(10)->Range(1000, 1'000'000);
BENCHMARK(BM_DenseVjp)->Arg(1000);

int main(int argc, char** argv) {
  return backsweep::bench::run_and_print_ratios(argc, argv, [](const backsweep::bench::TimeKeeper& times) {
    for (long n = 1000; n <= 1'000'000; n *= 10) {
      const auto rhs = times.seconds("BM_Rhs", std::to_string(n));
      if (!rhs) continue;
      for (const char* vjp : {"BM_SparseVjp", "BM_Dual5Rhs", "BM_SparseVjpStatesOnly",
                              "BM_Dual3Rhs", "BM_DenseVjp"})
        if (const auto t = times.seconds(vjp, std::to_string(n)))
          std::printf("n = %-8ld %-24s / RHS time: %7.2f\n", n, vjp, *t / *rhs);
    }
  });
}
