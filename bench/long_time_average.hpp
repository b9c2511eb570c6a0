#pragma once
// The independent reference the shadowing benchmarks check against: the derivative of a
// long-time average by a central difference of averages over independent long runs, the
// spread of the runs its standard error.
#include <cmath>
#include <cstddef>
#include <limits>
#include <thread>
#include <vector>

#include "bench/timing.hpp"
#include "solvers/explicit_rk.hpp"
#include "solvers/integrate.hpp"

namespace backsweep::bench {

// The mean of J at the steps of an rk4 run of `duration` after `spin_up`, from y.
template <class M, class Running>
double long_time_mean(const M& model, const Running& J, std::vector<double> y, const std::vector<double>& p,
                      double step, double spin_up, double duration) {
  ExplicitRK<M, double> stepper(model, tableaux::rk4);
  IntegrateOptions options;
  options.step = step;
  options.t1 = spin_up;
  options.max_steps = std::numeric_limits<std::size_t>::max();
  integrate(stepper, y.data(), p.data(), options);
  options.t0 = spin_up;
  options.t1 = spin_up + duration;
  double sum = 0.0;
  std::size_t steps = 0;
  integrate(stepper, y.data(), p.data(), options, [](double, const double*) {},
            [&](const StepInterval& at, const double* state) {
              sum += J(at.t_next, state, p.data());
              ++steps;
            });
  return sum / double(steps);
}

struct AverageSlope {
  double slope = 0.0, error = 0.0, seconds = 0.0;
};

// The mean over `runs` of (mean(p + delta, k) - mean(p - delta, k)) / (2 delta), run k on
// its own start, the runs spread over the cores.
template <class MeanOfRun>
AverageSlope average_slope(const MeanOfRun& mean, double p, double delta, std::size_t runs) {
  std::vector<double> slopes(runs);
  AverageSlope result;
  result.seconds = seconds_of([&] {
    std::vector<std::thread> threads;
    const std::size_t workers = std::max(1u, std::thread::hardware_concurrency());
    for (std::size_t w = 0; w < workers; ++w)
      threads.emplace_back([&, w] {
        for (std::size_t k = w; k < runs; k += workers)
          slopes[k] = (mean(p + delta, k) - mean(p - delta, k)) / (2.0 * delta);
      });
    for (auto& t : threads) t.join();
  });
  for (double s : slopes) result.slope += s / double(runs);
  double spread = 0.0;
  for (double s : slopes) spread += (s - result.slope) * (s - result.slope);
  result.error = runs > 1 ? std::sqrt(spread / double(runs - 1) / double(runs)) : NAN;
  return result;
}

}  // namespace backsweep::bench
