// The backward sweep's growth monitor: its robust fit and histograms on known data, its
// rate against Lorenz-63's leading Lyapunov exponent, and its verdicts on chaotic and
// non-chaotic models.
#include "adjoint/growth_monitor.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "adjoint/discrete_adjoint.hpp"
#include "models/builtin/registry.hpp"
#include "solvers/integrate.hpp"

using namespace backsweep;

TEST_CASE("Theil-Sen ignores a minority of outliers") {
  std::vector<double> x, y;
  for (int i = 0; i < 30; ++i) {
    x.push_back(i);
    y.push_back(2.0 * i + 1.0 + (i % 7 == 3 ? 50.0 : 0.0));
  }
  CHECK(theil_sen_slope(x, y) == doctest::Approx(2.0));
  CHECK(theil_sen_slope({1.0}, {1.0}) == 0.0);
}

TEST_CASE("magnitude bins are exact decades") {
  using H = MagnitudeHistograms;
  CHECK(H::bin(0.0) == 0);
  CHECK(H::bin(1e-31) == 0);
  CHECK(H::bin(INFINITY) == H::kBins - 1);
  CHECK(H::bin(NAN) == H::kBins - 1);
  CHECK(H::bin(1e31) == H::kBins - 1);
  for (int d = -30; d < 30; ++d) {
    const double power = std::strtod(("1e" + std::to_string(d)).c_str(), nullptr);
    const std::size_t expected = std::size_t(d - H::kLowestDecade) + 1;
    CHECK(H::bin(power) == expected);
    CHECK(H::bin(-power * 9.99) == expected);
    CHECK(H::bin(std::nextafter(power, 0.0)) == expected - 1);
  }
}

TEST_CASE("the monitor fits exponential growth and bins per interval") {
  MonitorOptions options;
  options.interval_times = {2.0, 5.0};
  GrowthMonitor monitor(options, 0.0, 10.0);
  for (int n = 999; n >= 0; --n) {  // lambda(t) = exp(0.7 (10 - t)) e_0, backward
    const double t = n * 0.01;
    const double lambda[2] = {std::exp(0.7 * (10.0 - t)), 0.0};
    monitor.record(t, lambda, 2, [] { return 1.0; });
  }
  const GrowthReport r = monitor.report();
  CHECK(r.growth_rate == doctest::Approx(0.7).epsilon(1e-9));
  CHECK(r.amplification == doctest::Approx(std::exp(0.7 * 9.99)).epsilon(1e-9));
  CHECK(r.horizon == doctest::Approx(std::log(1e6) / 0.7).epsilon(1e-9));
  CHECK(r.verdict == GrowthVerdict::growing);  // a factor of 1e3: above 10, within 1e6
  CHECK(r.times.size() == 1000);
  const auto& h = r.histograms;
  REQUIRE(h.interval_times == std::vector<double>{0.0, 2.0, 5.0, 10.0});
  // Per interval: each step adds one zero and one value; [0, 2) has 200 steps.
  std::size_t zeros = 0, in_first = 0;
  for (std::size_t k = 0; k < 3; ++k) zeros += h.counts[k * MagnitudeHistograms::kBins];
  for (std::size_t b = 0; b < MagnitudeHistograms::kBins; ++b) in_first += h.counts[b];
  CHECK(zeros == 1000);
  CHECK(in_first == 400);
}

TEST_CASE("watching a tangent, the monitor fits growth forward in time and bins forward") {
  MonitorOptions options;
  options.interval_times = {2.0, 5.0};
  GrowthMonitor monitor(options, 0.0, 10.0, 1000, Watched::tangent);
  for (int n = 1; n <= 1000; ++n) {  // s(t) = exp(0.7 t) e_0, forward
    const double t = n * 0.01;
    const double columns[2] = {std::exp(0.7 * t), 0.0};
    monitor.record(t, columns, 2, [] { return 1.0; });
  }
  const GrowthReport r = monitor.report();
  CHECK(r.watched == Watched::tangent);
  CHECK(r.growth_rate == doctest::Approx(0.7).epsilon(1e-9));
  CHECK(r.amplification == doctest::Approx(std::exp(0.7 * 9.99)).epsilon(1e-9));
  CHECK(r.verdict == GrowthVerdict::growing);
  CHECK(r.explanation.find("The tangent") == 0);
  // (0, 2] has 200 steps; each adds one zero and one value.
  std::size_t in_first = 0;
  for (std::size_t b = 0; b < MagnitudeHistograms::kBins; ++b) in_first += r.histograms.counts[b];
  CHECK(in_first == 400);
}

TEST_CASE("a long adjoint is binned and measured as a short one is") {
  // A grid model's adjoint goes through one fused pass (detail::bin_long_vector); a small
  // model's through count_bins and squared_norm. Both must count every component once.
  constexpr std::size_t n = kLongVector + 5;
  std::vector<double> lambda(n);
  for (std::size_t i = 0; i < n; ++i)
    lambda[i] = i % 11 == 0 ? 0.0 : (i % 2 ? -1.0 : 1.0) * std::pow(10.0, double(i % 70) - 35.0) * 1.5;
  std::vector<std::size_t> expected(MagnitudeHistograms::kBins);
  double squares = 0.0;
  for (double x : lambda) {
    ++expected[MagnitudeHistograms::bin(x)];
    squares += x * x;
  }
  std::vector<std::size_t> row(MagnitudeHistograms::kBins, 1);  // counts are added to a row
  CHECK(detail::bin_long_vector(n, lambda.data(), row.data()) == doctest::Approx(squares).epsilon(1e-14));
  for (std::size_t b = 0; b < MagnitudeHistograms::kBins; ++b) CHECK(row[b] == expected[b] + 1);

  // Through the monitor: its amplification is the ratio of the two norms it saw.
  GrowthMonitor monitor({}, 0.0, 1.0);
  monitor.record(1.0, lambda.data(), n, [] { return 1.0; });
  for (double& x : lambda) x *= 3.0;
  monitor.record(0.5, lambda.data(), n, [] { return 1.0; });
  const GrowthReport r = monitor.report();
  CHECK(r.amplification == doctest::Approx(3.0).epsilon(1e-14));
  std::size_t counted = 0;
  for (std::size_t c : r.histograms.counts) counted += c;
  CHECK(counted == 2 * n);
}

TEST_CASE("a long history is decimated, not dropped") {
  MonitorOptions options;
  options.history_limit = 100;
  GrowthMonitor monitor(options, 0.0, 1.0);
  for (int n = 9999; n >= 0; --n) {
    const double lambda = std::exp(-2.0 * (1.0 - n * 1e-4));
    monitor.record(n * 1e-4, &lambda, 1, [] { return 0.0; });
  }
  const GrowthReport r = monitor.report();
  CHECK(r.times.size() < 100);
  CHECK(r.times.size() >= 50);
  CHECK(r.growth_rate == doctest::Approx(-2.0).epsilon(1e-9));
  CHECK(r.verdict == GrowthVerdict::stable);
  CHECK(std::isinf(r.horizon));
}

namespace {

struct Sum {  // J = sum of the final state
  template <class T>
  T operator()(const T* y, const T*) const {
    T s(0);
    for (std::size_t i = 0; i < 2; ++i) s += y[i];
    return s;
  }
};
struct LastComponent {
  template <class T>
  T operator()(const T* y, const T*) const {
    return y[2];
  }
};

template <class M, class Terminal>
GrowthReport monitor_of(const M& model, std::vector<double> y0, double end, double step) {
  IntegrateOptions options;
  options.t1 = end;
  options.step = step;
  const GradientProblem<M, Objective<Terminal>> problem{
      model, tableaux::rk4, y0, {M::default_params.begin(), M::default_params.end()},
      Objective<Terminal>{}, options};
  const GradientResult<double> result = gradient(problem, problem.y0, problem.p);
  REQUIRE(result.ok());
  REQUIRE(result.diagnostics.monitor);
  return *result.diagnostics.monitor;
}

// Points on the Lorenz attractor: (1, 1, 1) after 20, 30, ..., 110 time units.
std::vector<std::vector<double>> on_attractor() {
  const models::Lorenz63 model;
  std::vector<double> y{1.0, 1.0, 1.0}, p(model.default_params.begin(), model.default_params.end());
  ExplicitRK<models::Lorenz63> stepper(model, tableaux::rk4);
  IntegrateOptions options;
  options.t1 = 110.0;
  options.step = 1e-3;
  for (int k = 2; k <= 11; ++k) options.output_times.push_back(10.0 * k);
  std::vector<std::vector<double>> points;
  REQUIRE(integrate(stepper, y.data(), p.data(), options,
                    [&](double t, const double* state) {
                      if (t > 0.0) points.emplace_back(state, state + 3);
                    })
              .ok());
  return points;
}

}  // namespace

TEST_CASE("on Lorenz-63 the monitor measures lambda_1 and flags chaos past the horizon") {
  const models::Lorenz63 model;
  double lowest = INFINITY, highest = 0.0;
  for (const std::vector<double>& start : on_attractor()) {
    const GrowthReport long_run =
        monitor_of<models::Lorenz63, LastComponent>(model, start, 20.0, 1e-3);
    lowest = std::min(lowest, long_run.growth_rate);
    highest = std::max(highest, long_run.growth_rate);
    CHECK(std::abs(long_run.growth_rate / 0.9056 - 1.0) <= 0.15);
    CHECK(long_run.verdict == GrowthVerdict::chaotic_divergence);
    CHECK(long_run.horizon < 20.0);
    CHECK(long_run.explanation.find("shadowing") != std::string::npos);

    const GrowthReport short_run =
        monitor_of<models::Lorenz63, LastComponent>(model, start, 1.0, 1e-3);
    CHECK(short_run.verdict != GrowthVerdict::chaotic_divergence);
  }
  MESSAGE("Lorenz-63, T = 20 from 10 points on the attractor: growth rates " << lowest << " to "
                                                                             << highest
                                                                             << " (lambda_1 = 0.9056)");
}

TEST_CASE("non-chaotic models are never chaotic_divergence") {
  for (double end : {1.0, 20.0, 100.0}) {
    const models::VanDerPol vdp;
    const models::LotkaVolterra lv;
    const models::HarmonicOscillator oscillator;
    const GrowthReport r[3] = {
        monitor_of<models::VanDerPol, Sum>(vdp, {2.0, 0.0}, end, 1e-2),
        monitor_of<models::LotkaVolterra, Sum>(lv, {1.0, 1.0}, end, 1e-2),
        monitor_of<models::HarmonicOscillator, Sum>(oscillator, {1.0, 0.0}, end, 1e-2)};
    for (const GrowthReport& report : r) {
      MESSAGE("T = " << end << ": rate " << report.growth_rate << ", amplification "
                     << report.amplification << ", " << std::string(to_string(report.verdict)));
      CHECK(report.verdict != GrowthVerdict::chaotic_divergence);
    }
    CHECK(r[2].growth_rate < 0.0);  // the damped oscillator's adjoint decays
  }
}
