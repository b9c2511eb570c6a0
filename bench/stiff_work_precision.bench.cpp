// Work-precision of stiff gradients, J = y1(T), dJ/d(p, y0): Robertson on [0, 40], and Van
// der Pol with mu = 1000 on its slow manifold [0, 500] and through its first relaxation
// jump (near t = 807) on [0, 1000], where the gradient amplifies every error made in
// the jump's timing and no method reaches 1e-6 in the tolerances tried. Our implicit
// methods (exact discrete adjoint) against CVODES BDF with its own adjoint, each over a
// range of tolerances; the error of each gradient is measured against a reference at
// rtol 1e-14. Reports, for target errors 1e-4, 1e-6 and 1e-8, each method's fastest
// gradient within the target as a ratio to CVODES' fastest. Usage: bench_stiff_work_precision
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#include "adjoint/discrete_adjoint.hpp"
#include "bench/timing.hpp"
#include "models/builtin/robertson.hpp"
#include "models/builtin/van_der_pol.hpp"

using namespace backsweep;

namespace {

struct FirstState {
  template <class T>
  T operator()(const T* y, const T*) const { return y[0]; }
};
using Final = Objective<FirstState>;

double error_of(const GradientResult<double>& g, const GradientResult<double>& reference) {
  double difference = 0;
  for (std::size_t j = 0; j < g.dJ_dp.size(); ++j)
    difference = std::max(difference, std::abs(g.dJ_dp[j] - reference.dJ_dp[j]) / std::abs(reference.dJ_dp[j]));
  for (std::size_t j = 0; j < g.dJ_dy0.size(); ++j)
    difference = std::max(difference, std::abs(g.dJ_dy0[j] - reference.dJ_dy0[j]) / std::abs(reference.dJ_dy0[j]));
  return difference;
}

// atol = rtol * atol_scale (the size of the smallest component that matters).
template <class M>
void work_precision(const char* title, const M& model, std::vector<double> y0, std::vector<double> p, double t1,
                    double atol_scale) {
  auto problem = [&](const Method& method, double rtol) {
    IntegrateOptions options;
    options.t1 = t1;
    options.rtol = rtol;
    options.atol = rtol * atol_scale;
    options.max_steps = 10'000'000;
    return GradientProblem<M, Final>{model, method, y0, p, Final{}, options};
  };
  Method tight = tableaux::sdirk4;
  tight.newton.tolerance = 1e-13;
  const auto reference_problem = problem(tight, 1e-14);
  const auto reference = gradient<double>(reference_problem, y0, p);
  if (!reference.ok()) {
    std::fprintf(stderr, "%s: the reference failed: %s\n", title, reference.message.c_str());
    std::exit(1);
  }
  const Method methods[] = {sundials_methods::cvodes_bdf, tableaux::sdirk4, tableaux::esdirk3};
  const double tolerances[] = {1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10, 1e-11, 1e-12};
  constexpr std::size_t kMethods = std::size(methods);
  // Every run of every tolerance interleaved in one measurement: all times are comparable.
  std::vector<std::function<void()>> runs;
  std::vector<GradientResult<double>> results(kMethods * std::size(tolerances));
  for (std::size_t r = 0; r < std::size(tolerances); ++r)
    for (std::size_t m = 0; m < kMethods; ++m) {
      const auto q = problem(methods[m], tolerances[r]);
      GradientResult<double>* out = &results[r * kMethods + m];
      runs.push_back([out, q] { *out = gradient<double>(q, q.y0, q.p); });
    }
  const std::vector<double> medians = bench::interleaved_medians(runs, 11);
  auto error = [&](std::size_t k) { return results[k].ok() ? error_of(results[k], reference) : NAN; };
  std::printf("%s: gradient error (largest relative over p and y0), time relative to cvodes_bdf at rtol 1e-6\n",
              title);
  std::printf("%-12s %8s %12s %8s %10s\n", "method", "rtol", "error", "steps", "time");
  const double unit = medians[3 * kMethods];
  for (std::size_t k = 0; k < runs.size(); ++k)
    std::printf("%-12s %8.0e %12.2e %8zu %10.3f\n", std::string(methods[k % kMethods].name()).c_str(),
                tolerances[k / kMethods], error(k), results[k].diagnostics.steps, medians[k] / unit);
  // Time to a gradient within the target: each method's fastest run that reaches it.
  std::printf("\ntime to a gradient of relative error <= target, as a ratio to cvodes_bdf's\n");
  std::printf("%-8s %-12s %8s %12s %10s\n", "target", "method", "rtol", "error", "ours/cvodes");
  for (const double target : {1e-4, 1e-6, 1e-8}) {
    double fastest[kMethods];
    std::size_t which[kMethods];
    for (std::size_t m = 0; m < kMethods; ++m) {
      fastest[m] = INFINITY;
      for (std::size_t r = 0; r < std::size(tolerances); ++r)
        if (const std::size_t k = r * kMethods + m; error(k) <= target && medians[k] < fastest[m])
          fastest[m] = medians[k], which[m] = k;
    }
    for (std::size_t m = 0; m < kMethods; ++m) {
      if (fastest[m] == INFINITY) {
        std::printf("%-8.0e %-12s %8s %12s %10s\n", target, std::string(methods[m].name()).c_str(), "-", "not reached",
                    "-");
        continue;
      }
      std::printf("%-8.0e %-12s %8.0e %12.2e ", target, std::string(methods[m].name()).c_str(),
                  tolerances[which[m] / kMethods], error(which[m]));
      if (fastest[0] == INFINITY) std::printf("%10s\n", "-");
      else std::printf("%10.3f\n", fastest[m] / fastest[0]);
    }
  }
  std::printf("\n");
}

}  // namespace

int main() {
  work_precision("Robertson, t in [0, 40], J = y1(T)", models::Robertson{}, {1, 0, 0}, {0.04, 3e7, 1e4}, 40.0, 1e-4);
  work_precision("Van der Pol, mu = 1000, t in [0, 500], J = x(T)", models::VanDerPol{}, {2, 0}, {1000}, 500.0, 1.0);
  work_precision("Van der Pol, mu = 1000, t in [0, 1000], J = x(T)", models::VanDerPol{}, {2, 0}, {1000}, 1000.0, 1.0);
}
