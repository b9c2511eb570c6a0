#pragma once
// Timing for the benchmark harnesses: runs several variants in turn, many times, and
// keeps each one's median. Interleaving means the machine's noise (other processes,
// frequency changes) hits every variant alike, so ratios of medians are stable even where
// single times are not. Report ratios, not lone times.
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <functional>
#include <vector>

namespace backsweep::bench {

inline double seconds_of(const std::function<void()>& run) {
  const auto start = std::chrono::steady_clock::now();
  run();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

inline double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

// The median seconds of each run, over `repeats` interleaved rounds (after one warm-up).
inline std::vector<double> interleaved_medians(const std::vector<std::function<void()>>& runs,
                                               int repeats) {
  std::vector<std::vector<double>> samples(runs.size());
  for (const auto& run : runs) run();
  for (int r = 0; r < repeats; ++r)
    for (std::size_t k = 0; k < runs.size(); ++k) samples[k].push_back(seconds_of(runs[k]));
  std::vector<double> medians;
  for (const auto& s : samples) medians.push_back(median(s));
  return medians;
}

}  // namespace backsweep::bench
