// Kuramoto–Sivashinsky as examples/kuramoto_sivashinsky.toml defines it (79 points on
// [0, 40], u = u_xx = 0 at the walls, c = 0.5): d<mean u>/dc by shadowing (NILSS) against
// a central difference of long-time averages over independent runs. Both run a native
// twin of the config's equations (the interpreter is too slow for the reference's runs);
// the bench first shows the twin's right-hand side equal to the config model's.
//   build/bench/bench_shadowing_kuramoto_sivashinsky [segments] [runs] [duration] [delta]
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "adjoint/shadowing.hpp"
#include "bench/long_time_average.hpp"
#include "io/assembly/gradient_config.hpp"
#include "models/expression_model.hpp"

namespace {

using namespace backsweep;

constexpr std::size_t kN = 79;
constexpr double kH = 40.0 / double(kN + 1), kStep = 0.005, kSpinUp = 100.0, kC = 0.5;

// lap(u) and bilap(u) = lap(lap(u)) with 0 beyond the walls, dx central.
struct KuramotoSivashinsky {
  static constexpr std::size_t n_state = kN, n_param = 1;
  template <class T>
  void operator()(T, const T* u, const T* p, T* dudt) const {
    const auto at = [](const auto* v, std::size_t i, int offset) {
      const long j = long(i) + offset;
      using V = std::remove_cvref_t<decltype(v[0])>;
      return j < 0 || j >= long(kN) ? V(0) : v[j];
    };
    std::array<T, kN> lap;
    for (std::size_t i = 0; i < kN; ++i) lap[i] = (at(u, i, -1) - T(2) * u[i] + at(u, i, 1)) * T(1.0 / (kH * kH));
    for (std::size_t i = 0; i < kN; ++i) {
      const T bilap = (at(lap.data(), i, -1) - T(2) * lap[i] + at(lap.data(), i, 1)) * T(1.0 / (kH * kH));
      const T dx = (at(u, i, 1) - at(u, i, -1)) * T(0.5 / kH);
      dudt[i] = -(u[i] + p[0]) * dx - lap[i] - bilap;
    }
  }
};

struct MeanU {
  template <class T>
  T operator()(T, const T* u, const T*) const {
    T sum = u[0];
    for (std::size_t i = 1; i < kN; ++i) sum = sum + u[i];
    return sum * (1.0 / double(kN));
  }
};

std::vector<double> start(std::size_t k) {
  std::vector<double> u(kN);
  for (std::size_t i = 0; i < kN; ++i) {
    const double x = kH * double(i + 1);
    u[i] = std::sin(M_PI * x / 40.0) + 0.3 * std::sin(3.0 * M_PI * x / 40.0) + 0.01 * double(k) * std::sin(x);
  }
  return u;
}

// The largest difference of the twin's right-hand side from the config model's, relative.
double twin_difference(const char* config_path) {
  const GradientConfig config = load_gradient_config(config_path);
  const ExpressionModel& model = *config.simulate.expression_model;
  const std::vector<double> u = start(3), p{kC};
  std::vector<double> ours(kN), theirs(kN);
  KuramotoSivashinsky{}(0.0, u.data(), p.data(), ours.data());
  model(0.0, u.data(), p.data(), theirs.data());
  double largest = 0.0, scale = 0.0;
  for (std::size_t i = 0; i < kN; ++i) {
    largest = std::max(largest, std::abs(ours[i] - theirs[i]));
    scale = std::max(scale, std::abs(theirs[i]));
  }
  return largest / scale;
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t segments = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 800;
  const std::size_t runs = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 16;
  const double duration = argc > 3 ? std::atof(argv[3]) : 20000.0;
  const double delta = argc > 4 ? std::atof(argv[4]) : 0.1;

  std::printf("native twin vs examples/kuramoto_sivashinsky.toml: largest relative difference %.1e\n",
              twin_difference(BACKSWEEP_SOURCE_DIR "/examples/kuramoto_sivashinsky.toml"));
  const bench::AverageSlope reference = bench::average_slope(
      [&](double c, std::size_t k) {
        return bench::long_time_mean(KuramotoSivashinsky{}, MeanU{}, start(k), {c}, kStep, kSpinUp, duration);
      },
      kC, delta, runs);
  std::printf("reference: d<mean u>/dc = %.4f +- %.4f (c %g +- %g; %zu runs x %.0f, %.0f s)\n", reference.slope,
              reference.error, kC, delta, runs, duration, reference.seconds);
  std::printf("%9s %10s %10s %10s %12s %12s %10s %10s\n", "unstable", "NILSS", "error est", "|diff|", "diff/error",
              "forward-eqv", "v median", "v largest");
  for (std::size_t unstable : {1u, 2u, 4u, 6u}) {
    ShadowingOptions options;
    options.unstable = unstable;
    options.step = kStep;
    options.segment_length = 5.0;
    options.segments = segments;
    options.spin_up = kSpinUp;
    ShadowingResult r;
    const double shadowing_seconds = bench::seconds_of(
        [&] { r = shadowing_gradient(KuramotoSivashinsky{}, tableaux::rk4, start(99), {kC}, MeanU{}, {0}, options); });
    const double forward_seconds = bench::seconds_of([&] {
      bench::long_time_mean(KuramotoSivashinsky{}, MeanU{}, start(99), {kC}, kStep, kSpinUp, 5.0 * double(segments));
    });
    const double difference = std::abs(r.gradient[0] - reference.slope);
    std::printf("%9zu %10.4f %10.4f %10.4f %12.2f %12.1f %10.3g %10.3g\n", unstable, r.gradient[0], r.error[0], difference,
                difference / std::hypot(r.error[0], reference.error), shadowing_seconds / forward_seconds, r.direction_median[0], r.direction_largest[0]);
  }
  return 0;
}
