// The fit's likelihood against independent references: its gradient (adjoint and
// tangent, lin and log10 scales, known and profiled noise) against central differences
// of the value, the Fisher information against finite-difference sensitivities, and the
// reported standard errors against the spread of fits to 20 noisy data sets, for a C++
// model and a model defined by expressions.
#include "fit/data_fit.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <random>

#include "fit/multistart.hpp"
#include "models/builtin/lotka_volterra.hpp"
#include "models/expression_model.hpp"

using namespace backsweep;

namespace {

struct Counts {  // the states themselves: prey (0) and predators (1)
  template <class T>
  T operator()(std::size_t o, T, const T* y, const T*) const {
    return y[o];
  }
};

struct StartAtOne {  // x0 = y0 = 1 in every experiment
  template <class T>
  void operator()(std::size_t, const T*, T* y0) const {
    y0[0] = y0[1] = T(1);
  }
};

const std::vector<double> kTruth{1.5, 1.0, 3.0, 1.0};

// Measurements of every observable at `times`, the truth plus Gaussian noise.
template <class M, class Observables, class Initial>
std::vector<Measurement> simulated_data(const M& model, Observables observables,
                                        std::size_t observable_count, Initial initial,
                                        const std::vector<double>& truth,
                                        const std::vector<double>& times, double sigma,
                                        std::uint64_t seed) {
  std::vector<double> y(state_size(model));
  initial(0, truth.data(), y.data());
  ExplicitRK<M> stepper(model, tableaux::dopri5);
  IntegrateOptions options;
  options.t1 = times.back();
  options.rtol = 1e-10;
  options.atol = 1e-12;
  options.output_times = times;
  std::mt19937_64 random(seed);
  std::normal_distribution<double> noise(0.0, sigma);
  std::vector<Measurement> data;
  REQUIRE(integrate(stepper, y.data(), truth.data(), options, [&](double t, const double* state) {
            if (t == 0.0) return;
            for (std::size_t o = 0; o < observable_count; ++o)
              data.push_back({0, o, t, observables(o, t, state, truth.data()) + noise(random), sigma});
          }).ok());
  return data;
}

std::vector<double> every(double step, int count) {
  std::vector<double> times;
  for (int k = 1; k <= count; ++k) times.push_back(step * k);
  return times;
}

std::vector<Measurement> noisy_data(std::uint64_t seed, double sigma) {
  return simulated_data(models::LotkaVolterra{}, Counts{}, 2, StartAtOne{}, kTruth, every(0.5, 20),
                        sigma, seed);
}

DataFit<models::LotkaVolterra, Counts, StartAtOne> make_fit(const models::LotkaVolterra& model,
                                                std::vector<Measurement> data, bool log10,
                                                bool estimate_sigma, bool adjoint) {
  IntegrateOptions options;
  options.t1 = 10.0;
  options.rtol = 1e-8;
  options.atol = 1e-10;
  std::vector<EstimatedParameter> estimated;
  for (std::size_t j = 0; j < 4; ++j) estimated.push_back({j, log10 ? ParameterScale::log10 : ParameterScale::lin});
  return {model, tableaux::dopri5, options, Counts{}, 2, StartAtOne{}, {kTruth}, std::move(data),
          estimated, estimate_sigma, adjoint ? GradientMode::adjoint : GradientMode::tangent,
          CheckpointOptions{}};
}

}  // namespace

TEST_CASE("the likelihood's gradient matches central differences in every mode") {
  const models::LotkaVolterra model;
  const std::vector<Measurement> data = noisy_data(3, 0.1);
  for (bool log10 : {false, true})
    for (bool estimate_sigma : {false, true}) {
      auto adjoint = make_fit(model, data, log10, estimate_sigma, true);
      auto tangent = make_fit(model, data, log10, estimate_sigma, false);
      std::vector<double> theta{1.3, 0.9, 3.2, 1.1}, ga, gt, unused;
      if (log10)
        for (double& x : theta) x = std::log10(x);
      std::string failure;
      const double value = adjoint.evaluate(theta, ga, failure);
      CHECK(tangent.evaluate(theta, gt, failure) == doctest::Approx(value).epsilon(1e-12));
      for (std::size_t i = 0; i < 4; ++i) {
        const double h = 1e-6;
        std::vector<double> up = theta, down = theta;
        up[i] += h;
        down[i] -= h;
        const double fd = (adjoint.evaluate(up, unused, failure) - adjoint.evaluate(down, unused, failure)) / (2 * h);
        CAPTURE(log10);
        CAPTURE(estimate_sigma);
        CAPTURE(i);
        CHECK(ga[i] == doctest::Approx(gt[i]).epsilon(1e-9));
        CHECK(ga[i] == doctest::Approx(fd).epsilon(1e-5));
      }
    }
}

TEST_CASE("the Fisher information is JᵀWJ of finite-difference sensitivities") {
  const models::LotkaVolterra model;
  auto fit = make_fit(model, noisy_data(5, 0.1), true, false, true);
  std::vector<double> theta{0.1, 0.0, 0.5, 0.0}, predictions;
  Eigen::MatrixXd information;
  std::string failure;
  REQUIRE(fit.fisher(theta, information, predictions, failure));
  const std::size_t m = predictions.size();
  Eigen::MatrixXd jacobian(Eigen::Index(m), 4);
  for (std::size_t i = 0; i < 4; ++i) {
    std::vector<double> up = theta, down = theta, pu, pd;
    Eigen::MatrixXd unused;
    up[i] += 1e-6;
    down[i] -= 1e-6;
    REQUIRE(fit.fisher(up, unused, pu, failure));
    REQUIRE(fit.fisher(down, unused, pd, failure));
    for (std::size_t k = 0; k < m; ++k) jacobian(Eigen::Index(k), Eigen::Index(i)) = (pu[k] - pd[k]) / 2e-6 / 0.1;
  }
  const Eigen::MatrixXd expected = jacobian.transpose() * jacobian;
  CHECK((information - expected).norm() <= 1e-5 * expected.norm());
}

namespace {

// Fits 20 data sets drawn around the truth, each from one start in a box around it
// (these models have other minima far away), and compares the mean standard error
// from the Fisher information with the spread of the estimates.
template <class M, class Observables, class Initial>
void check_spread(const M& model, Observables observables, std::size_t observable_count,
                  Initial initial, const std::vector<double>& truth,
                  const std::vector<double>& times, double sigma) {
  const std::size_t q = truth.size();
  OptimizerOptions options;
  options.starts = 1;
  // Adaptive steps make the objective smooth only to about rtol: the tolerance is that
  // of the line search, far below the standard errors.
  options.gradient_tolerance = 1e-3;
  IntegrateOptions integrate;
  integrate.t1 = times.back();
  integrate.rtol = 1e-8;
  integrate.atol = 1e-10;
  std::vector<EstimatedParameter> estimated;
  std::vector<double> lower, upper;
  for (std::size_t j = 0; j < q; ++j) {
    estimated.push_back({j, ParameterScale::lin});
    lower.push_back(0.7 * truth[j]);
    upper.push_back(1.4 * truth[j]);
  }
  std::vector<std::vector<double>> estimates;
  std::vector<double> mean_error(q, 0.0);
  std::size_t covered = 0;
  for (std::uint64_t seed = 100; seed < 120; ++seed) {
    DataFit<M, Observables, Initial> fit(
        model, tableaux::dopri5, integrate, observables, observable_count, initial, {truth},
        simulated_data(model, observables, observable_count, initial, truth, times, sigma, seed),
        estimated, false, GradientMode::tangent, CheckpointOptions{});
    const MultistartResult result = minimize_multistart(
        [&](const std::vector<double>& theta, std::vector<double>& gradient) {
          std::string failure;
          return fit.evaluate(theta, gradient, failure);
        },
        lower, upper, options, nullptr);
    const StartResult& best = result.starts[result.best];
    CAPTURE(best.reason);
    REQUIRE(best.converged);
    Eigen::MatrixXd information;
    std::vector<double> predictions;
    std::string failure;
    REQUIRE(fit.fisher(best.x, information, predictions, failure));
    const Eigen::MatrixXd covariance = information.inverse();
    bool inside = true;
    for (std::size_t i = 0; i < q; ++i) {
      const double error = std::sqrt(covariance(Eigen::Index(i), Eigen::Index(i)));
      mean_error[i] += error / 20.0;
      inside = inside && std::abs(best.x[i] - truth[i]) <= 2.0 * error;
    }
    covered += inside ? 1 : 0;
    estimates.push_back(best.x);
  }
  for (std::size_t i = 0; i < q; ++i) {
    double mean = 0.0, squares = 0.0;
    for (const auto& e : estimates) mean += e[i] / 20.0;
    for (const auto& e : estimates) squares += (e[i] - mean) * (e[i] - mean);
    const double spread = std::sqrt(squares / 19.0);
    MESSAGE("parameter " << i << ": spread over 20 fits " << spread << ", mean standard error "
                         << mean_error[i] << ", ratio " << mean_error[i] / spread);
    CHECK(mean_error[i] / spread <= 1.5);
    CHECK(spread / mean_error[i] <= 1.5);
  }
  MESSAGE(covered << " of 20 fits hold every parameter within 2 standard errors of the truth");
  CHECK(covered >= 15);
}

struct InfectedAndRecovered {
  template <class T>
  T operator()(std::size_t o, T, const T* y, const T*) const {
    return y[1 + o];
  }
};
struct SirStart {  // S = N - i0, I = i0, R = 0 with N = 1000
  template <class T>
  void operator()(std::size_t, const T* p, T* y0) const {
    y0[0] = T(1000) - p[2];
    y0[1] = p[2];
    y0[2] = T(0);
  }
};

}  // namespace

TEST_CASE("standard errors agree with the spread over 20 noisy data sets: Lotka-Volterra") {
  check_spread(models::LotkaVolterra{}, Counts{}, 2, StartAtOne{}, kTruth, every(0.5, 20), 0.1);
}

TEST_CASE("standard errors agree with the spread over 20 noisy data sets: SIR from the config") {
  const ExpressionModel sir = ExpressionModel::parse(
      {"S", "I", "R"}, {"beta", "gamma", "i0"},
      {"-beta*S*I/N", "beta*S*I/N - gamma*I", "gamma*I"}, {{"N", 1000.0}});
  check_spread(sir, InfectedAndRecovered{}, 2, SirStart{}, {0.3, 0.1, 5.0}, every(2.0, 30), 10.0);
}

TEST_CASE("Latin hypercube points fill one stratum per coordinate") {
  const auto points = latin_hypercube(7, {0.0, -1.0}, {1.0, 1.0}, 42);
  REQUIRE(points.size() == 7);
  for (std::size_t i = 0; i < 2; ++i) {
    std::vector<int> hits(7, 0);
    for (const auto& p : points) {
      const double unit = i == 0 ? p[0] : (p[1] + 1.0) / 2.0;
      ++hits[std::size_t(unit * 7.0)];
    }
    for (int h : hits) CHECK(h == 1);
  }
  CHECK(latin_hypercube(7, {0.0}, {1.0}, 42) == latin_hypercube(7, {0.0}, {1.0}, 42));
}
