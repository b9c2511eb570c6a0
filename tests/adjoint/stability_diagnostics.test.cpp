// Stability diagnostics of a gradient: a NaN that appears only in the backward sweep is
// reported at its step and component, float32 checkpoints report what they cost in
// accuracy and save in memory, and h rho(J) / beta is estimated within a few percent
// below its true value on grids' Laplacians (3-D heat, 2-D periodic).
#include <doctest/doctest.h>

#include <cmath>

#include "adjoint/discrete_adjoint.hpp"
#include "adjoint/stiffness.hpp"
#include "models/expression_model.hpp"
#include "models/builtin/registry.hpp"

using namespace backsweep;

namespace {

// x' = 1 (a clock), z' = p sqrt(|x - 1/2|): every value is finite, but the slope of z
// with respect to x is infinite where a stage has x = 1/2 exactly. Heun's method with
// steps of 1/8 from 0 keeps the clock exact, so the first stage of step 4 (t = 1/2) is
// the first such stage the backward sweep meets.
struct KinkedClock {
  static constexpr std::size_t n_state = 2, n_param = 1;
  template <class T>
  void operator()(T, const T* y, const T* p, T* dydt) const {
    using std::abs, std::sqrt;
    dydt[0] = T(1);
    dydt[1] = p[0] * sqrt(abs(y[0] - T(0.5)));
  }
};
struct FinalZ {
  template <class T>
  T operator()(const T* y, const T*) const {
    return y[1];
  }
};

}  // namespace

TEST_CASE("a NaN in the backward sweep only is reported at its step and component") {
  const KinkedClock model;
  IntegrateOptions options;
  options.t1 = 1.0;
  options.step = 0.125;
  const GradientProblem<KinkedClock, Objective<FinalZ>> problem{
      model, tableaux::heun, {0.0, 0.0}, {1.0}, Objective<FinalZ>{}, options};
  for (auto schedule : {CheckpointOptions::Schedule::store_all, CheckpointOptions::Schedule::revolve}) {
    const GradientResult<double> result = gradient(problem, problem.y0, problem.p, {schedule, 2});
    REQUIRE(result.diagnostics.nonfinite);
    const NonFinite& at = *result.diagnostics.nonfinite;
    CHECK(at.phase == "backward");
    CHECK(at.step == 4);
    CHECK(at.time == 0.5);
    CHECK(at.component == 0);
    CHECK(!result.ok());
    CHECK(result.message.find("backward sweep at step 4") != std::string::npos);
    CHECK(std::isfinite(result.value));  // the forward sweep was fine
  }
}

namespace {

struct Misfit {  // sum of squares of the final state
  template <class T>
  T operator()(const T* y, const T*) const {
    return y[0] * y[0] + y[1] * y[1];
  }
};

template <class M>
void compare_storage(const M& model, double end, double step) {
  IntegrateOptions options;
  options.t1 = end;
  options.step = step;
  const GradientProblem<M, Objective<Misfit>> problem{
      model, tableaux::rk4, {M::default_initial.begin(), M::default_initial.end()},
      {M::default_params.begin(), M::default_params.end()}, Objective<Misfit>{}, options};
  for (auto schedule : {CheckpointOptions::Schedule::store_all, CheckpointOptions::Schedule::revolve}) {
    CheckpointOptions exact{schedule, 20}, rounded{schedule, 20};
    rounded.storage = CheckpointOptions::Storage::float32;
    const GradientResult<double> a = gradient(problem, problem.y0, problem.p, exact);
    const GradientResult<double> b = gradient(problem, problem.y0, problem.p, rounded);
    REQUIRE(a.ok());
    REQUIRE(b.ok());
    double scale = 0.0, error = 0.0;
    for (std::size_t j = 0; j < a.dJ_dp.size(); ++j) {
      scale = std::max(scale, std::abs(a.dJ_dp[j]));
      error = std::max(error, std::abs(a.dJ_dp[j] - b.dJ_dp[j]));
    }
    const double relative = error / scale;
    MESSAGE(M::name << ", " << b.diagnostics.schedule << ": float32 checkpoints change dJ/dp by "
                    << relative << " (relative, max norm) and hold "
                    << b.diagnostics.checkpoint_bytes << " bytes instead of "
                    << a.diagnostics.checkpoint_bytes);
    CHECK(b.diagnostics.storage == "float32");
    CHECK(2 * b.diagnostics.checkpoint_bytes == a.diagnostics.checkpoint_bytes);
    CHECK(relative > 0.0);      // the rounding is real ...
    CHECK(relative < 1e-4);     // ... and of float size on these short horizons
  }
}

}  // namespace

TEST_CASE("float32 checkpoints halve the memory at a measured cost in accuracy") {
  compare_storage(models::Lorenz63{}, 2.0, 1e-3);
  compare_storage(models::VanDerPol{}, 10.0, 1e-2);
}

TEST_CASE("float32 checkpoints are refused for a differentiated gradient") {
  const models::VanDerPol model;
  IntegrateOptions options;
  options.step = 0.1;
  const GradientProblem<models::VanDerPol, Objective<Misfit>> problem{
      model, tableaux::rk4, {2.0, 0.0}, {1.0}, Objective<Misfit>{}, options};
  CheckpointOptions rounded;
  rounded.storage = CheckpointOptions::Storage::float32;
  using D = Dual<double, 1>;
  const auto result = gradient<D>(problem, {D(2.0), D(0.0)}, {D::variable(1.0, 0)}, rounded);
  CHECK(result.status == IntegrateStatus::invalid_options);
}

TEST_CASE("h rho(J) / beta: a few percent below the truth on a 3-D heat grid and a 2-D periodic one") {
  constexpr double pi = 3.141592653589793;
  const double beta = real_stability_limit(tableaux::rk4);
  {  // div_grad(k, u), k = 1.5, 16^3 Dirichlet points of spacing 1/16: k times the Laplacian
    const std::size_t n = 16;
    const ExpressionModel heat = ExpressionModel::parse(
        FieldEquations(Grid({n, n, n}, {1.0, 1.0, 1.0}, std::vector<Boundary>(3, Boundary::dirichlet)), {"u"}, {"k"}, 0), {}, {"div_grad(k, u)"});
    const std::vector<double> y(n * n * n, 0.5), p(n * n * n, 1.5);
    const double h2 = 1.0 / double((n + 1) * (n + 1));
    const double rho = 1.5 * 3.0 * 4.0 / h2 * std::pow(std::sin(pi * double(n) / (2.0 * double(n + 1))), 2);
    const double ratio = stability_ratio(heat, tableaux::rk4, 0.0, y.data(), p.data(), 1e-4);
    MESSAGE("3-D heat: estimated / true h rho / beta = " << ratio / (1e-4 * rho / beta));
    CHECK(ratio <= 1e-4 * rho / beta * (1 + 1e-12));
    CHECK(ratio >= 0.95 * 1e-4 * rho / beta);
  }
  {  // lap(u) on a 32 x 32 periodic grid of spacing 1: 8 (the checkerboard)
    const ExpressionModel wave = ExpressionModel::parse(
        FieldEquations(Grid({32, 32}, {32.0, 32.0}, std::vector<Boundary>(2, Boundary::periodic)), {"u"}, {}, 0), {}, {"lap(u)"});
    const std::vector<double> y(32 * 32, 0.5);
    const double ratio = stability_ratio(wave, tableaux::rk4, 0.0, y.data(), nullptr, 0.1);
    MESSAGE("2-D periodic: estimated / true h rho / beta = " << ratio / (0.1 * 8.0 / beta));
    CHECK(ratio <= 0.1 * 8.0 / beta * (1 + 1e-12));
    CHECK(ratio >= 0.95 * 0.1 * 8.0 / beta);
  }
  CHECK(stability_ratio(KinkedClock{}, tableaux::sdirk2, 0.0, std::vector<double>{0.2, 0.0}.data(),
                        std::vector<double>{1.0}.data(), 0.1) == 0.0);  // implicit: no limit
}

TEST_CASE("h rho(J) / beta: decay is the step's limit; growth and an infinite slope are not") {
  const auto ratio = [](const std::string& equation, double x) {
    const ExpressionModel model = ExpressionModel::parse({"x"}, {"a"}, {equation});
    const double a = 40.0;
    return stability_ratio(model, tableaux::rk4, 0.0, &x, &a, 0.1);
  };
  CHECK(ratio("-a*x", 1.0) == doctest::Approx(0.1 * 40.0 / real_stability_limit(tableaux::rk4)).epsilon(1e-12));
  CHECK(ratio("a*x", 1.0) == 0.0);      // growth: the problem's own
  CHECK(ratio("-sqrt(x)", 0.0) == 0.0);  // an infinite slope at the start: nothing to say
}
