// Lorenz-96 (N = 40, F = 8): d<mean x^2>/dF by shadowing (NILSS) against a central
// difference of long-time averages over independent runs, and how large the shadowing
// direction grows. Measured here: the reference 3.42 +- 0.01 (16 runs x 5000, F 8 +- 0.5);
// NILSS over 200 time units 5.7 +- 3.7, but over 1000 or more the shadowing direction
// grows to 1e5 in stretches of ~100 time units (m = 13, 14, 20, 30 and 39 = all directions
// but the flow's alike, any segment length): Lorenz-96's attractor is far from hyperbolic
// (unstable dimension variability: Maiocchi, Lucarini, Gritsun & Sato 2023), so no
// shadowing direction stays bounded and the derivative is dominated by those stretches.
// The error estimate says so (it is as large as the result).
// Then the cost in parameters: a forcing per site (40 parameters), d<mean x^2>/dF_i for
// all of them by NILSS (13 + 40 tangent lanes) and by its adjoint (13 lanes, marched twice,
// and one reverse sweep), their times and their largest relative difference.
//   build/bench/bench_shadowing_lorenz96 [unstable] [segments] [segment_length] [runs] [duration] [delta]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "adjoint/shadowing_adjoint.hpp"
#include "bench/long_time_average.hpp"

namespace {

using namespace backsweep;

constexpr std::size_t kN = 40;
constexpr double kStep = 0.01, kSpinUp = 50.0;

struct Lorenz96 {
  static constexpr std::size_t n_state = kN, n_param = 1;
  template <class T>
  void operator()(T, const T* x, const T* p, T* dxdt) const {
    for (std::size_t i = 0; i < kN; ++i)
      dxdt[i] = (x[(i + 1) % kN] - x[(i + kN - 2) % kN]) * x[(i + kN - 1) % kN] - x[i] + p[0];
  }
};

struct Lorenz96PerSite {  // F_i at each site, with its VJP (as a config model's is O(n))
  static constexpr std::size_t n_state = kN, n_param = kN;
  template <class T>
  void operator()(T, const T* x, const T* p, T* dxdt) const {
    for (std::size_t i = 0; i < kN; ++i)
      dxdt[i] = (x[(i + 1) % kN] - x[(i + kN - 2) % kN]) * x[(i + kN - 1) % kN] - x[i] + p[i];
  }
  void vjp(double, const double* x, const double*, const double* l, double* vjp_x, double* vjp_p) const {
    for (std::size_t j = 0; j < kN; ++j) vjp_x[j] = -l[j];
    for (std::size_t i = 0; i < kN; ++i) {
      const std::size_t above = (i + 1) % kN, below = (i + kN - 1) % kN, twice = (i + kN - 2) % kN;
      vjp_x[above] += l[i] * x[below];
      vjp_x[twice] -= l[i] * x[below];
      vjp_x[below] += l[i] * (x[above] - x[twice]);
      vjp_p[i] = l[i];
    }
  }
};

struct MeanSquare {
  template <class T>
  T operator()(T, const T* x, const T*) const {
    T sum = x[0] * x[0];
    for (std::size_t i = 1; i < kN; ++i) sum = sum + x[i] * x[i];
    return sum * (1.0 / double(kN));
  }
};

std::vector<double> start(std::size_t k) {
  std::vector<double> x(kN, 8.0);
  x[k % kN] += 0.01 * double(k + 1);
  return x;
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t unstable = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 13;
  const std::size_t segments = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 1000;
  const double segment_length = argc > 3 ? std::atof(argv[3]) : 1.0;
  const std::size_t runs = argc > 4 ? std::strtoul(argv[4], nullptr, 10) : 16;
  const double duration = argc > 5 ? std::atof(argv[5]) : 5000.0;
  const double delta = argc > 6 ? std::atof(argv[6]) : 0.5;

  const bench::AverageSlope reference = bench::average_slope(
      [&](double F, std::size_t k) {
        return bench::long_time_mean(Lorenz96{}, MeanSquare{}, start(k), {F}, kStep, kSpinUp, duration);
      },
      8.0, delta, runs);
  std::printf("reference: d<mean x^2>/dF = %.4f +- %.4f (F 8 +- %g; %zu runs x %.0f, %.0f s)\n", reference.slope,
              reference.error, delta, runs, duration, reference.seconds);

  ShadowingOptions options;
  options.unstable = unstable;
  options.step = kStep;
  options.segment_length = segment_length;
  options.segments = segments;
  options.spin_up = kSpinUp;
  ShadowingResult r;
  const double shadowing_seconds = bench::seconds_of(
      [&] { r = shadowing_gradient(Lorenz96{}, tableaux::rk4, start(99), {8.0}, MeanSquare{}, {0}, options); });
  const double forward_seconds = bench::seconds_of([&] {
    bench::long_time_mean(Lorenz96{}, MeanSquare{}, start(99), {8.0}, kStep, kSpinUp, double(segments) * segment_length);
  });
  std::printf("NILSS m = %zu, %zu segments of %g: %.4f +- %.4f, %.1f forward-solve equivalents; shadowing direction "
              "median %.3g, largest %.3g at t = %.0f\n",
              unstable, segments, segment_length, r.gradient[0], r.error[0], shadowing_seconds / forward_seconds,
              r.direction_median[0], r.direction_largest[0], r.direction_largest_at[0]);

  options.segments = 100;
  std::vector<std::size_t> sites(kN);
  for (std::size_t i = 0; i < kN; ++i) sites[i] = i;
  const std::vector<double> forcing(kN, 8.0);
  const std::vector<std::size_t> one{0};
  ShadowingResult tangent, adjoint;
  const std::vector<double> medians = bench::interleaved_medians(
      {[&] {
         bench::long_time_mean(Lorenz96PerSite{}, MeanSquare{}, start(99), forcing, kStep, kSpinUp,
                               double(options.segments) * segment_length);
       },
       [&] { shadowing_gradient(Lorenz96PerSite{}, tableaux::rk4, start(99), forcing, MeanSquare{}, one, options); },
       [&] { tangent = shadowing_gradient(Lorenz96PerSite{}, tableaux::rk4, start(99), forcing, MeanSquare{}, sites, options); },
       [&] { shadowing_adjoint_gradient(Lorenz96PerSite{}, tableaux::rk4, start(99), forcing, MeanSquare{}, one, options); },
       [&] {
         adjoint = shadowing_adjoint_gradient(Lorenz96PerSite{}, tableaux::rk4, start(99), forcing, MeanSquare{}, sites,
                                              options);
       }},
      3);
  double largest = 0.0;
  for (std::size_t i = 0; i < kN; ++i) largest = std::max(largest, std::abs(adjoint.gradient[i] / tangent.gradient[i] - 1.0));
  std::printf("forcing per site, %zu segments, in forward-solve equivalents: NILSS %.1f (1 parameter), %.1f (40); "
              "adjoint %.1f (1), %.1f (40); largest relative difference over the 40: %.1e\n",
              options.segments, medians[1] / medians[0], medians[2] / medians[0], medians[3] / medians[0],
              medians[4] / medians[0], largest);
  return 0;
}
