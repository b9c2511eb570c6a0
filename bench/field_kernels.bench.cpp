// The built-in heat kernel (a conductivity field) against the same PDE defined by
// equations (`div_grad(k, u)`, as configs define it): nanoseconds per grid point for the
// right-hand side and the VJP, on square grids. Ratios from one run:
//   build/bench/bench_field_kernels --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>

#include <cmath>
#include <type_traits>
#include <vector>

#include "models/builtin/heat.hpp"
#include "models/expression_model.hpp"

using namespace backsweep;

namespace {

Grid square(std::size_t side) {
  return Grid({side, side}, {1.0, 1.0}, {Boundary::neumann, Boundary::dirichlet});
}

std::vector<double> wavy(std::size_t n, double base) {
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = base + std::sin(0.01 * double(i));
  return v;
}

template <class Model>
void run(benchmark::State& state, const Model& model, bool vjp) {
  const std::size_t n = model.state_size();
  const auto u = wavy(n, 0.0), k = wavy(n, 2.0), lambda = wavy(n, 1.0);
  std::vector<double> out(n), out_k(n);
  [[maybe_unused]] ExpressionModel::Tape<double> tape;
  for (auto _ : state) {
    if (!vjp) {
      model(0.0, u.data(), k.data(), out.data());
    } else if constexpr (std::is_same_v<Model, ExpressionModel>) {
      model.vjp(tape, 0.0, u.data(), k.data(), lambda.data(), out.data(), out_k.data());
    } else {
      model.vjp(0.0, u.data(), k.data(), lambda.data(), out.data(), out_k.data());
    }
    benchmark::DoNotOptimize(out.data());
  }
  state.counters["ns_per_point"] =
      benchmark::Counter(double(n) * double(state.iterations()), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void kernel_rhs(benchmark::State& state) { run(state, models::Heat(square(std::size_t(state.range(0)))), false); }
void kernel_vjp(benchmark::State& state) { run(state, models::Heat(square(std::size_t(state.range(0)))), true); }
ExpressionModel equations(std::size_t side) {
  return ExpressionModel::parse(FieldEquations(square(side), {"u"}, {"k"}, 0), {}, {"div_grad(k, u)"});
}
void equations_rhs(benchmark::State& state) { run(state, equations(std::size_t(state.range(0))), false); }
void equations_vjp(benchmark::State& state) { run(state, equations(std::size_t(state.range(0))), true); }

}  // namespace

BENCHMARK(kernel_rhs)->Arg(64)->Arg(256);
BENCHMARK(equations_rhs)->Arg(64)->Arg(256);
BENCHMARK(kernel_vjp)->Arg(64)->Arg(256);
BENCHMARK(equations_vjp)->Arg(64)->Arg(256);
BENCHMARK_MAIN();
