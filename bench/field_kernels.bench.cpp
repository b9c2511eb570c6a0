// The built-in grid kernels (Gray–Scott, heat with a conductivity field, acoustic with a
// velocity field) against the same PDEs defined by equations, as configs define them, run
// by the interpreter and compiled to native kernels at run time: nanoseconds per grid
// point for the right-hand side and the VJP, on square grids. Ratios from one run:
//   build/bench/bench_field_kernels --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>

#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

#include "models/builtin/acoustic.hpp"
#include "models/builtin/gray_scott.hpp"
#include "models/builtin/heat.hpp"
#include "models/expression_model.hpp"

using namespace backsweep;

namespace {

Grid square(std::size_t side) {
  return Grid({side, side}, {1.0, 1.0}, {Boundary::neumann, Boundary::dirichlet});
}

std::vector<double> wavy(std::size_t n, double base) {
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = base + 0.5 * std::sin(0.01 * double(i));
  return v;
}

template <class Model>
void run(benchmark::State& state, const Model& model, bool vjp) {
  const std::size_t n = model.state_size(), np = model.param_size();
  const auto y = wavy(n, 0.5), p = wavy(np, 2.0), lambda = wavy(n, 1.0);
  std::vector<double> out(n), out_p(np);
  [[maybe_unused]] ExpressionModel::Tape<double> tape;
  for (auto _ : state) {
    if (!vjp) {
      model(0.0, y.data(), p.data(), out.data());
    } else if constexpr (std::is_same_v<Model, ExpressionModel>) {
      model.vjp(tape, 0.0, y.data(), p.data(), lambda.data(), out.data(), out_p.data());
    } else {
      model.vjp(0.0, y.data(), p.data(), lambda.data(), out.data(), out_p.data());
    }
    benchmark::DoNotOptimize(out.data());
  }
  state.counters["ns_per_point"] = benchmark::Counter(double(state.range(0) * state.range(0)) * double(state.iterations()),
                                                      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

// The PDEs as a config writes them.
ExpressionModel equations(const std::string& which, std::size_t side, bool compiled) {
  ExpressionModel model =
      which == "gray_scott"
          ? ExpressionModel::parse(FieldEquations(square(side), {"u", "v"}, {}, 4), {"D1", "D2", "gamma", "kappa"},
                                   {"D1*lap(u) - u*v^2 + gamma*(1 - u)", "D2*lap(v) + u*v^2 - (gamma + kappa)*v"})
      : which == "heat" ? ExpressionModel::parse(FieldEquations(square(side), {"u"}, {"k"}, 0), {}, {"div_grad(k, u)"})
                        : ExpressionModel::parse(FieldEquations(square(side), {"p", "q"}, {"c"}, 0), {},
                                                 {"q", "c^2*lap(p)"});
  if (compiled) model.compile(CompilerOptions{});
  return model;
}

void kernel(benchmark::State& state, const std::string& which, bool vjp) {
  const Grid grid = square(std::size_t(state.range(0)));
  if (which == "gray_scott") run(state, models::GrayScott(grid), vjp);
  else if (which == "heat") run(state, models::Heat(grid), vjp);
  else run(state, models::Acoustic(grid, {}), vjp);
}
void from_equations(benchmark::State& state, const std::string& which, bool compiled, bool vjp) {
  run(state, equations(which, std::size_t(state.range(0)), compiled), vjp);
}

}  // namespace

#define BACKSWEEP_FIELD_BENCH(model)                                                                \
  BENCHMARK_CAPTURE(kernel, model##_rhs_kernel, #model, false)->Arg(256)->Arg(1024);                       \
  BENCHMARK_CAPTURE(from_equations, model##_rhs_compiled, #model, true, false)->Arg(256)->Arg(1024);        \
  BENCHMARK_CAPTURE(from_equations, model##_rhs_interpreted, #model, false, false)->Arg(256);              \
  BENCHMARK_CAPTURE(kernel, model##_vjp_kernel, #model, true)->Arg(256)->Arg(1024);                        \
  BENCHMARK_CAPTURE(from_equations, model##_vjp_compiled, #model, true, true)->Arg(256)->Arg(1024);         \
  BENCHMARK_CAPTURE(from_equations, model##_vjp_interpreted, #model, false, true)->Arg(256);

BACKSWEEP_FIELD_BENCH(gray_scott)
BACKSWEEP_FIELD_BENCH(heat)
BACKSWEEP_FIELD_BENCH(acoustic)
BENCHMARK_MAIN();
