// Work-precision of stiff gradients: Robertson on [0, 40], J = y1(T), dJ/d(k1, k2, k3,
// y0). Our implicit methods (exact discrete adjoint) against CVODES BDF with its own
// adjoint, each over a range of tolerances; the error of each gradient is measured
// against a reference at rtol 1e-12, and times are reported as ratios to CVODES at the
// tolerance that reaches matched accuracy. Usage: bench_stiff_work_precision
#include <cmath>
#include <cstdio>
#include <vector>

#include "adjoint/discrete_adjoint.hpp"
#include "bench/timing.hpp"
#include "models/builtin/robertson.hpp"

using namespace backsweep;

namespace {

struct FirstState {
  template <class T>
  T operator()(const T* y, const T*) const { return y[0]; }
};
using Final = Objective<FirstState>;

GradientProblem<models::Robertson, Final> problem(const models::Robertson& model, Method method, double rtol) {
  IntegrateOptions options;
  options.t1 = 40.0;
  options.rtol = rtol;
  options.atol = rtol * 1e-4;
  return {model, method, {1, 0, 0}, {0.04, 3e7, 1e4}, Final{}, options};
}

double error_of(const GradientResult<double>& g, const GradientResult<double>& reference) {
  double difference = 0;
  for (std::size_t j = 0; j < 3; ++j) {
    difference = std::max(difference, std::abs(g.dJ_dp[j] - reference.dJ_dp[j]) / std::abs(reference.dJ_dp[j]));
    difference = std::max(difference, std::abs(g.dJ_dy0[j] - reference.dJ_dy0[j]) / std::abs(reference.dJ_dy0[j]));
  }
  return difference;
}

}  // namespace

int main() {
  const models::Robertson model;
  const auto reference_problem = problem(model, tableaux::sdirk4, 1e-12);
  const auto reference = gradient<double>(reference_problem, reference_problem.y0, reference_problem.p);
  const Method methods[] = {sundials_methods::cvodes_bdf, tableaux::sdirk4, tableaux::esdirk3};
  const double tolerances[] = {1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10};
  // Every run of every tolerance interleaved in one measurement: all times are comparable.
  std::vector<std::function<void()>> runs;
  std::vector<GradientResult<double>> results(std::size(methods) * std::size(tolerances));
  for (std::size_t r = 0; r < std::size(tolerances); ++r)
    for (std::size_t m = 0; m < std::size(methods); ++m) {
      const auto p = problem(model, methods[m], tolerances[r]);
      GradientResult<double>* out = &results[r * std::size(methods) + m];
      runs.push_back([out, p] { *out = gradient<double>(p, p.y0, p.p); });
    }
  const std::vector<double> medians = bench::interleaved_medians(runs, 11);
  auto error = [&](std::size_t k) { return results[k].ok() ? error_of(results[k], reference) : NAN; };
  std::printf("Robertson, t in [0, 40], J = y1(T): gradient error (largest relative over k and y0),\n"
              "time relative to cvodes_bdf at rtol 1e-6\n");
  std::printf("%-12s %8s %12s %8s %10s\n", "method", "rtol", "error", "steps", "time");
  const double unit = medians[3 * std::size(methods)];
  for (std::size_t k = 0; k < runs.size(); ++k)
    std::printf("%-12s %8.0e %12.2e %8zu %10.3f\n", std::string(methods[k % std::size(methods)].name()).c_str(),
                tolerances[k / std::size(methods)], error(k), results[k].diagnostics.steps, medians[k] / unit);
  // Matched accuracy: for each CVODES run, the fastest run of ours at least as accurate.
  std::printf("\nmatched accuracy: ours / cvodes_bdf time at equal or better gradient error\n");
  for (std::size_t r = 0; r < std::size(tolerances); ++r) {
    const std::size_t c = r * std::size(methods);
    double best = INFINITY;
    std::size_t which = 0;
    for (std::size_t k = 0; k < runs.size(); ++k)
      if (k % std::size(methods) != 0 && error(k) <= error(c) && medians[k] < best) best = medians[k], which = k;
    if (best < INFINITY)
      std::printf("cvodes rtol %6.0e (error %.1e): %s rtol %.0e (error %.1e), time ratio %.3f\n", tolerances[r],
                  error(c), std::string(methods[which % std::size(methods)].name()).c_str(),
                  tolerances[which / std::size(methods)], error(which), best / medians[c]);
  }
}
