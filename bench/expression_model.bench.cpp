// Right-hand side evaluations per second: Lorenz-63 defined by expressions (as a config
// file defines it) against the C++ Lorenz63, on double and on Dual<double, 8> (what
// Jacobians, VJPs and tangent solves evaluate). The ratios printed at the end are the
// cost of defining a model in the config file instead of C++.
//   build/bench/bench_expression_model --benchmark_min_time=1 --benchmark_repetitions=3
#include <benchmark/benchmark.h>

#include <array>
#include <cstdio>
#include <map>
#include <string>

#include "models/builtin/lorenz63.hpp"
#include "models/expression_model.hpp"

namespace {

using backsweep::Dual;
using backsweep::ExpressionModel;
using backsweep::models::Lorenz63;

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

void BM_CppDouble(benchmark::State& s) { evaluate_rhs<double>(s, Lorenz63{}); }
void BM_ConfigDouble(benchmark::State& s) { evaluate_rhs<double>(s, config_lorenz()); }
void BM_CppDual8(benchmark::State& s) { evaluate_rhs<Dual<double, 8>>(s, Lorenz63{}); }
void BM_ConfigDual8(benchmark::State& s) { evaluate_rhs<Dual<double, 8>>(s, config_lorenz()); }

// Keeps each benchmark's time per evaluation, to print the ratios after the table.
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    // One figure per benchmark: its run, or the median of its repetitions.
    for (const Run& run : runs)
      if (run.run_type == Run::RT_Iteration || run.aggregate_name == "median")
        seconds_[run.run_name.function_name] = run.GetAdjustedCPUTime();
    ConsoleReporter::ReportRuns(runs);
  }
  void print_ratios() const {
    for (const char* scalar : {"Double", "Dual8"}) {
      const auto cpp = seconds_.find(std::string("BM_Cpp") + scalar);
      const auto config = seconds_.find(std::string("BM_Config") + scalar);
      if (cpp == seconds_.end() || config == seconds_.end()) continue;
      std::printf("config / C++ time per RHS evaluation (%s): %.2f\n", scalar,
                  config->second / cpp->second);
    }
  }

 private:
  std::map<std::string, double> seconds_;
};

}  // namespace

BENCHMARK(BM_CppDouble);
BENCHMARK(BM_ConfigDouble);
BENCHMARK(BM_CppDual8);
BENCHMARK(BM_ConfigDual8);

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  reporter.print_ratios();
  benchmark::Shutdown();
  return 0;
}
