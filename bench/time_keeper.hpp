#pragma once
// For Google Benchmark harnesses that print ratios after the table: a console reporter
// that keeps each benchmark's CPU time per iteration (the machine may be shared; CPU time
// is what the ratios compare), the median of its repetitions when there are some, and a
// main() body that runs everything and then prints.
#include <benchmark/benchmark.h>

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace backsweep::bench {

class TimeKeeper : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs)
      if (run.run_type == Run::RT_Iteration || run.aggregate_name == "median")
        seconds_[run.run_name.function_name][run.run_name.args] = run.GetAdjustedCPUTime();
    ConsoleReporter::ReportRuns(runs);
  }
  // The time of benchmark `function` with argument `args` ("" when it takes none).
  std::optional<double> seconds(const std::string& function, const std::string& args = "") const {
    const auto f = seconds_.find(function);
    if (f == seconds_.end()) return std::nullopt;
    const auto a = f->second.find(args);
    if (a == f->second.end()) return std::nullopt;
    return a->second;
  }

 private:
  std::map<std::string, std::map<std::string, double>> seconds_;  // [function][args]
};

// Runs the registered benchmarks, then print_ratios(times).
inline int run_and_print_ratios(int argc, char** argv,
                                const std::function<void(const TimeKeeper&)>& print_ratios) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  TimeKeeper times;
  benchmark::RunSpecifiedBenchmarks(&times);
  print_ratios(times);
  benchmark::Shutdown();
  return 0;
}

}  // namespace backsweep::bench
