// Right-hand side evaluations per second: Lorenz-63 defined by expressions (as a config
// file defines it) against the C++ Lorenz63, on double and on Dual<double, 8> (what
// Jacobians, VJPs and tangent solves evaluate). The ratios printed at the end are the
// cost of defining a model in the config file instead of C++.
//
// And the reverse-mode VJP of Lorenz-96 defined by expressions, N = 40 ... 2560 states:
// its time over one right-hand side should stay a small constant as N grows (Dual lanes
// would need N / 8 right-hand sides).
//   build/bench/bench_expression_model --benchmark_min_time=1 --benchmark_repetitions=3
#include <benchmark/benchmark.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "bench/time_keeper.hpp"
#include "models/builtin/lorenz63.hpp"
#include "models/expression_model.hpp"

namespace {

using backsweep::Dual;
using backsweep::ExpressionModel;
using backsweep::models::Lorenz63;

constexpr long kLorenz96Sizes[] = {40, 160, 640, 2560};

const ExpressionModel& config_lorenz() {
  static const ExpressionModel model = ExpressionModel::parse(
      {"x", "y", "z"}, {"sigma", "rho", "beta"},
      {"sigma*(y - x)", "x*(rho - z) - y", "x*y - beta*z"});
  return model;
}

template <class T>
std::array<T, 3> seeded(std::array<double, 3> values, int first_lane) {
  std::array<T, 3> x;
  for (int i = 0; i < 3; ++i) {
    x[i] = T(values[i]);
    if constexpr (backsweep::is_dual_v<T>) x[i].d[first_lane + i] = 1.0;
  }
  return x;
}

template <class T, class Model>
void evaluate_rhs(benchmark::State& state, const Model& model) {
  std::array<T, 3> y = seeded<T>({1.0, 2.0, 20.0}, 0);
  const std::array<T, 3> p = seeded<T>({10.0, 28.0, 8.0 / 3.0}, 3);
  std::array<T, 3> dydt;
  for (auto _ : state) {
    benchmark::DoNotOptimize(y);  // the inputs may have changed: no hoisting
    model(T(0.0), y.data(), p.data(), dydt.data());
    benchmark::DoNotOptimize(dydt);
  }
  state.SetItemsProcessed(state.iterations());
}

// dx_i/dt = (x_{i+1} - x_{i-2}) x_{i-1} - x_i + F, periodic: one model per size, kept.
const ExpressionModel& config_lorenz96(std::size_t n) {
  static std::map<std::size_t, std::unique_ptr<ExpressionModel>> models;
  std::unique_ptr<ExpressionModel>& model = models[n];
  if (!model) {
    const auto name = [n](std::size_t i) {
      std::string s = "x";  // += : GCC 12 misreports "literal" + string (-Wrestrict)
      s += std::to_string(i % n);
      return s;
    };
    std::vector<std::string> states, equations;
    for (std::size_t i = 0; i < n; ++i) {
      states.push_back(name(i));
      std::string equation = "(";
      equation.append(name(i + 1)).append(" - ").append(name(i + n - 2)).append(")*");
      equation.append(name(i + n - 1)).append(" - ").append(name(i)).append(" + F");
      equations.push_back(equation);
    }
    model = std::make_unique<ExpressionModel>(ExpressionModel::parse(states, {"F"}, equations));
  }
  return *model;
}

std::vector<double> wavy(std::size_t n, double phase) {
  std::vector<double> x(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = 8.0 + std::sin(0.37 * double(i) + phase);
  return x;
}

void BM_Lorenz96Rhs(benchmark::State& state) {
  const ExpressionModel& model = config_lorenz96(std::size_t(state.range(0)));
  std::vector<double> y = wavy(model.state_size(), 0.0), dydt(model.state_size());
  const double p[1] = {8.0};
  for (auto _ : state) {
    benchmark::DoNotOptimize(y.data());
    model(0.0, y.data(), p, dydt.data());
    benchmark::ClobberMemory();
  }
}

void BM_Lorenz96ReverseVjp(benchmark::State& state) {
  const ExpressionModel& model = config_lorenz96(std::size_t(state.range(0)));
  const std::size_t n = model.state_size();
  std::vector<double> y = wavy(n, 0.0), lambda = wavy(n, 1.0), vjp_y(n);
  const double p[1] = {8.0};
  double vjp_p[1];
  ExpressionModel::Tape<double> tape;
  for (auto _ : state) {
    benchmark::DoNotOptimize(y.data());
    benchmark::DoNotOptimize(lambda.data());
    model.vjp(tape, 0.0, y.data(), p, lambda.data(), vjp_y.data(), vjp_p);
    benchmark::ClobberMemory();
  }
}

void BM_CppDouble(benchmark::State& s) { evaluate_rhs<double>(s, Lorenz63{}); }
void BM_ConfigDouble(benchmark::State& s) { evaluate_rhs<double>(s, config_lorenz()); }
void BM_CppDual8(benchmark::State& s) { evaluate_rhs<Dual<double, 8>>(s, Lorenz63{}); }
void BM_ConfigDual8(benchmark::State& s) { evaluate_rhs<Dual<double, 8>>(s, config_lorenz()); }

}  // namespace

BENCHMARK(BM_CppDouble);
BENCHMARK(BM_ConfigDouble);
BENCHMARK(BM_CppDual8);
BENCHMARK(BM_ConfigDual8);
BENCHMARK(BM_Lorenz96Rhs)->Arg(kLorenz96Sizes[0])->Arg(kLorenz96Sizes[1])
    ->Arg(kLorenz96Sizes[2])->Arg(kLorenz96Sizes[3]);
BENCHMARK(BM_Lorenz96ReverseVjp)->Arg(kLorenz96Sizes[0])->Arg(kLorenz96Sizes[1])
    ->Arg(kLorenz96Sizes[2])->Arg(kLorenz96Sizes[3]);

int main(int argc, char** argv) {
  return backsweep::bench::run_and_print_ratios(argc, argv, [](const backsweep::bench::TimeKeeper& times) {
    for (const char* scalar : {"Double", "Dual8"}) {
      const auto cpp = times.seconds(std::string("BM_Cpp") + scalar);
      const auto config = times.seconds(std::string("BM_Config") + scalar);
      if (cpp && config)
        std::printf("config / C++ time per RHS evaluation (%s): %.2f\n", scalar, *config / *cpp);
    }
    for (const long n : kLorenz96Sizes) {
      const auto rhs = times.seconds("BM_Lorenz96Rhs", std::to_string(n));
      const auto vjp = times.seconds("BM_Lorenz96ReverseVjp", std::to_string(n));
      if (rhs && vjp)
        std::printf("Lorenz-96 by expressions, N = %4ld: reverse-mode VJP / RHS time: %.2f\n", n,
                    *vjp / *rhs);
    }
  });
}
