// The discrete adjoint against independent references: the forward tangent of the same
// solver (Dual numbers through the whole solve), central finite differences of the same
// discrete solve, and Taylor remainders; for every built-in model and every tableau,
// fixed and adaptive.
#include "adjoint/discrete_adjoint.hpp"

#include <doctest/doctest.h>

#include <cmath>

#include "adjoint/forward_tangent.hpp"
#include "adjoint/gradient_check.hpp"
#include "adjoint/hessian.hpp"
#include "models/builtin/diffusion_1d.hpp"
#include "models/builtin/registry.hpp"
#include "solvers/context.hpp"

using namespace backsweep;

namespace {

struct Terminal {
  template <class T>
  T operator()(const T* y, const T* p) const {
    return y[0] * y[0] + T(0.5) * y[1] + p[0] * y[0];
  }
};
struct Running {  // time-dependent on purpose
  template <class T>
  T operator()(T t, const T* y, const T* p) const {
    using std::sin;
    return T(0.1) * y[0] * y[1] + sin(t) * p[0] * y[1];
  }
};
struct Misfit {
  template <class T>
  T operator()(std::size_t k, const T* y, const T*) const {
    const T r = y[1] - T(0.2 * double(k + 1));
    return r * r;
  }
};
using FullObjective = Objective<Terminal, Running, Misfit>;

struct FromParameters {  // x0 = gamma / delta, y0 = alpha / (2 beta)
  template <class T>
  void operator()(const T* p, T* y0) const {
    y0[0] = p[2] / p[3];
    y0[1] = p[0] / p[1] * T(0.5);
  }
};

struct Setup {
  double end, step;
};
template <class M>
Setup setup_for() {
  if constexpr (std::is_same_v<M, models::Robertson>) return {0.02, 2e-5};
  else if constexpr (std::is_same_v<M, models::Lorenz63>) return {0.5, 2e-3};
  else return {1.5, 1e-2};
}

template <class M>
GradientProblem<M, FullObjective> make_problem(const M& model, const ButcherTableau& tableau,
                                               bool adaptive) {
  const Setup setup = setup_for<M>();
  IntegrateOptions options;
  options.t1 = setup.end;
  options.step = adaptive ? 0.0 : setup.step;
  options.rtol = 1e-7;
  options.atol = 1e-9;
  FullObjective objective;
  objective.observation_times = {setup.end / 4, setup.end / 2};
  return {model,
          tableau,
          {M::default_initial.begin(), M::default_initial.end()},
          {M::default_params.begin(), M::default_params.end()},
          objective,
          options};
}

// NaN anywhere gives NaN, which fails every comparison.
double relative_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double difference = 0, scale = 1e-300;
  for (std::size_t i = 0; i < a.size(); ++i) {
    difference = detail::nan_max(difference, std::abs(a[i] - b[i]));
    scale = std::max(scale, std::abs(a[i]));
  }
  return difference / scale;
}

}  // namespace

TEST_CASE_TEMPLATE("adjoint = forward tangent to round-off, and = finite differences", M,
                   models::Lorenz63, models::VanDerPol, models::LotkaVolterra,
                   models::HarmonicOscillator, models::Robertson) {
  const M model;
  for (const ButcherTableau* tableau : tableaux::all) {
    for (bool adaptive : {false, true}) {
      if (adaptive && !tableau->adaptive()) continue;
      CAPTURE(tableau->name);
      CAPTURE(adaptive);
      const auto problem = make_problem(model, *tableau, adaptive);
      const auto adjoint = gradient<double>(problem, problem.y0, problem.p);
      const auto tangent = tangent_gradient(problem);
      REQUIRE(adjoint.ok());
      REQUIRE(tangent.ok());
      CHECK(adjoint.value == doctest::Approx(tangent.value).epsilon(1e-14));
      std::vector<double> a = adjoint.dJ_dp, t = tangent.dJ_dp;
      a.insert(a.end(), adjoint.dJ_dy0.begin(), adjoint.dJ_dy0.end());
      t.insert(t.end(), tangent.dJ_dy0.begin(), tangent.dJ_dy0.end());
      const double versus_tangent = relative_difference(a, t);
      CHECK(versus_tangent <= 1e-12);

      const GradientCheckReport check = check_gradient(problem, 1e-12, 1e-6);
      CAPTURE(check.message);
      CHECK(check.ok);
      static double worst_tangent = 0, worst_fd = 0;
      worst_tangent = std::max(worst_tangent, versus_tangent);
      worst_fd = std::max(worst_fd, check.adjoint_vs_finite_difference);
      MESSAGE("worst so far: adjoint vs tangent " << worst_tangent << ", vs FD " << worst_fd);
    }
  }
}

TEST_CASE("Taylor remainders fall at rate 2") {
  const models::LotkaVolterra model;
  for (const ButcherTableau* tableau : {&tableaux::heun3, &tableaux::rk4, &tableaux::tsit5}) {
    CAPTURE(tableau->name);
    const auto problem = make_problem(model, *tableau, tableau->adaptive());
    const TaylorTestReport report =
        taylor_test(problem, {0.3, -0.2, 0.1, 0.25}, {0.1, -0.3}, 1e-2, 5);
    CAPTURE(report.min_rate);
    CHECK(report.ok);
    CHECK(report.min_rate >= 1.95);
  }
}

TEST_CASE("gradients are bitwise identical for store-all and revolve with any slot count") {
  const models::Lorenz63 model;
  auto problem = make_problem(model, tableaux::dopri5, false);
  problem.integrate.step = 5e-4;  // 1000 steps
  const auto reference = gradient<double>(problem, problem.y0, problem.p);
  REQUIRE(reference.ok());
  CHECK(reference.diagnostics.steps == 1000);
  CHECK(reference.diagnostics.forward_steps == 1000);
  CHECK(reference.diagnostics.recomputed_steps == 0);  // store-all's sweep takes no step again
  for (std::size_t slots : {1u, 2u, 3u, 5u, 10u, 31u, 100u, 999u, 1000u, 5000u}) {
    CAPTURE(slots);
    const auto result = gradient<double>(
        problem, problem.y0, problem.p, {CheckpointOptions::Schedule::revolve, slots});
    REQUIRE(result.ok());
    CHECK(result.value == reference.value);
    CHECK(result.dJ_dp == reference.dJ_dp);
    CHECK(result.dJ_dy0 == reference.dJ_dy0);
    CHECK(result.diagnostics.forward_steps == revolve_min_recomputations(1000, slots));
    CHECK(result.diagnostics.recomputed_steps == result.diagnostics.forward_steps - 999);
    CHECK(result.diagnostics.peak_slots <= slots);
    CHECK(result.diagnostics.adjoint_steps == 1000);
  }
}

namespace {
struct Middle {  // the sum of squares of the middle half, and a parameter at one point
  template <class T>
  T operator()(const T* y, const T* p) const {
    T sum(0);
    for (std::size_t i = 10; i < 30; ++i) sum += y[i] * y[i];
    return sum + p[1] * y[5];
  }
};
}  // namespace

TEST_CASE("a model with a sparse Jacobian: the adjoint equals the tangent, by sparse VJPs") {
  const models::Diffusion1D model(40);
  IntegrateOptions options;
  options.t1 = 0.01;
  options.step = 2.5e-4;  // D dt / dx^2 = 0.42: stable for rk4
  Objective<Middle> objective;
  const GradientProblem<models::Diffusion1D, Objective<Middle>> problem{
      model, tableaux::rk4, model.default_initial(), {1.0, 0.5}, objective, options};
  const auto adjoint = gradient<double>(problem, problem.y0, problem.p);
  REQUIRE(adjoint.ok());
  CHECK(adjoint.diagnostics.derivatives == "sparse");
  const auto tangent = tangent_gradient(problem);
  REQUIRE(tangent.ok());
  std::vector<double> a = adjoint.dJ_dp, t = tangent.dJ_dp;
  a.insert(a.end(), adjoint.dJ_dy0.begin(), adjoint.dJ_dy0.end());
  t.insert(t.end(), tangent.dJ_dy0.begin(), tangent.dJ_dy0.end());
  CHECK(relative_difference(a, t) <= 1e-12);
}

TEST_CASE("bitwise across schedules: adaptive steps with rejections, and a model of run-time size") {
  auto same = [](const GradientResult<double>& a, const GradientResult<double>& b) {
    CHECK(a.value == b.value);
    CHECK(a.dJ_dp == b.dJ_dp);
    CHECK(a.dJ_dy0 == b.dJ_dy0);
  };
  {  // store-all records its steps as it solves; revolve solves first to fix them
    const models::VanDerPol model;
    auto problem = make_problem(model, tableaux::dopri5, true);
    problem.integrate.initial_step = 0.5;  // rejected at first
    const auto reference = gradient<double>(problem, problem.y0, problem.p);
    REQUIRE(reference.ok());
    for (std::size_t slots : {1u, 3u, 20u}) {
      CAPTURE(slots);
      const auto result = gradient<double>(problem, problem.y0, problem.p,
                                           {CheckpointOptions::Schedule::revolve, slots});
      REQUIRE(result.ok());
      CHECK(result.diagnostics.sequence_steps == reference.diagnostics.steps);
      same(result, reference);
    }
  }
  {  // states in run-time sized buffers, VJPs by the sparse Jacobian
    const models::Diffusion1D model(40);
    IntegrateOptions options;
    options.t1 = 0.01;
    options.step = 2.5e-4;
    Objective<Middle> objective;
    const GradientProblem<models::Diffusion1D, Objective<Middle>> problem{
        model, tableaux::rk4, model.default_initial(), {1.0, 0.5}, objective, options};
    const auto reference = gradient<double>(problem, problem.y0, problem.p);
    for (std::size_t slots : {2u, 7u})
      same(gradient<double>(problem, problem.y0, problem.p,
                            {CheckpointOptions::Schedule::revolve, slots}),
           reference);
  }
}

namespace {
struct Blows {  // y' = y^2 from y = 1: infinite at t = 1
  static constexpr std::size_t n_state = 2, n_param = 1;
  template <class T>
  void operator()(T, const T* y, const T*, T* dydt) const {
    dydt[0] = T(0);
    dydt[1] = y[1] * y[1];
  }
};
}  // namespace

namespace {
// Disk slots kept in memory: the engine's side of two-level checkpointing, without HDF5
// (adjoint/checkpoint_file.hpp, tested through the program).
struct SlotsInMemory : SlotFile {
  std::size_t width;
  std::vector<double> values;
  std::size_t *writes, *reads;
  SlotsInMemory(std::size_t slots, std::size_t w, std::size_t* wr, std::size_t* rd)
      : width(w), values(slots * w), writes(wr), reads(rd) {}
  void write(std::size_t slot, const double* v) override {
    std::copy(v, v + width, values.begin() + std::ptrdiff_t(slot * width));
    ++*writes;
  }
  void read(std::size_t slot, double* v) override {
    std::copy(values.begin() + std::ptrdiff_t(slot * width),
              values.begin() + std::ptrdiff_t((slot + 1) * width), v);
    ++*reads;
  }
};
}  // namespace

TEST_CASE("bitwise across every schedule and budget: store-all, revolve, online, two levels") {
  using Schedule = CheckpointOptions::Schedule;
  const models::VanDerPol model;
  for (bool adaptive : {false, true}) {
    CAPTURE(adaptive);
    auto problem = make_problem(model, adaptive ? tableaux::dopri5 : tableaux::rk4, adaptive);
    if (adaptive) problem.integrate.initial_step = 0.5;  // rejected at first
    const auto reference = gradient<double>(problem, problem.y0, problem.p);
    REQUIRE(reference.ok());
    std::size_t writes = 0, reads = 0;
    std::vector<CheckpointOptions> runs;
    for (std::size_t slots : {1u, 2u, 5u, 40u}) runs.push_back({Schedule::revolve, slots});
    for (std::size_t slots : {1u, 2u, 3u, 7u, 50u, 1000u}) runs.push_back({Schedule::online, slots});
    for (std::size_t memory : {1u, 2u})
      for (std::size_t disk : {1u, 3u, 17u}) {
        CheckpointOptions two{Schedule::two_level, memory};
        two.disk_slots = disk;
        two.disk_file = [&](std::size_t slots, std::size_t width) {
          return std::make_unique<SlotsInMemory>(slots, width, &writes, &reads);
        };
        runs.push_back(two);
      }
    for (std::uint64_t memory : {200'000u, 400'000u, 4'000'000u}) {
      CheckpointOptions budget;
      budget.memory = memory;
      runs.push_back(budget);
    }
    for (const CheckpointOptions& options : runs) {
      const auto result = gradient<double>(problem, problem.y0, problem.p, options);
      CAPTURE(result.diagnostics.schedule);
      CAPTURE(result.diagnostics.slots);
      CAPTURE(result.diagnostics.disk_slots);
      CAPTURE(result.message);
      REQUIRE(result.ok());
      CHECK(result.value == reference.value);
      CHECK(result.dJ_dp == reference.dJ_dp);
      CHECK(result.dJ_dy0 == reference.dJ_dy0);
      CHECK(result.diagnostics.adjoint_steps == reference.diagnostics.steps);
      if (result.diagnostics.schedule == "online") CHECK(result.diagnostics.sequence_steps == 0);
    }
    // The disk level was used, and every disk write of a two-level run was read back.
    CHECK(writes > 0);
    CHECK(reads >= writes);
  }
}

TEST_CASE("online checkpointing of adaptive steps: no solve to count them, 13 RHS a step at most") {
  // dopri5 is FSAL: 6 new slopes per accepted step forward; backward each step is restored
  // from a slot that knows its accepted size, so its 5 needed slopes are all it takes.
  const models::VanDerPol model;
  const auto problem = make_problem(model, tableaux::dopri5, true);
  const auto result = gradient<double>(problem, problem.y0, problem.p,
                                       {CheckpointOptions::Schedule::online, 100'000});
  REQUIRE(result.ok());
  const auto& d = result.diagnostics;
  CHECK(d.schedule == "online");
  CHECK(d.sequence_steps == 0);
  const double per_step = double(d.rhs_evaluations) / double(d.steps);
  MESSAGE("online, ample slots, adaptive dopri5: " << per_step << " RHS evaluations per step");
  CHECK(per_step <= 13.0);
}

TEST_CASE("a NaN in the forward solve is reported alike by every schedule") {
  using Obj = Objective<Terminal>;
  const Blows model;
  IntegrateOptions options;
  options.t1 = 2.0;
  options.step = 0.125;
  const Obj objective;
  const GradientProblem<Blows, Obj> problem{model, tableaux::rk4, {1.0, 1.0}, {0.0}, objective,
                                            options};
  const auto all = gradient<double>(problem, problem.y0, problem.p);
  const auto revolve =
      gradient<double>(problem, problem.y0, problem.p, {CheckpointOptions::Schedule::revolve, 3});
  REQUIRE(all.diagnostics.nonfinite);
  REQUIRE(revolve.diagnostics.nonfinite);
  const NonFinite& a = *all.diagnostics.nonfinite;
  const NonFinite& b = *revolve.diagnostics.nonfinite;
  CHECK(a.phase == "forward");
  CHECK(a.component == 1);
  CHECK(a.step == b.step);
  CHECK(a.time == b.time);
  CHECK(a.time == doctest::Approx(0.125 * double(a.step)));  // the state's own time
  CHECK(all.message == revolve.message);
}

TEST_CASE("the gradient flows through an initial state that depends on the parameters") {
  using Obj = Objective<Terminal, NoTerm, Misfit, FromParameters>;
  const models::LotkaVolterra model;
  IntegrateOptions options;
  options.t1 = 2.0;
  options.step = 0.01;
  Obj objective;
  objective.observation_times = {1.0};
  const GradientProblem<models::LotkaVolterra, Obj> problem{
      model, tableaux::rk4, {0, 0}, {1.5, 1.0, 3.0, 1.0}, objective, options};
  const GradientCheckReport check = check_gradient(problem, 1e-12, 1e-6);
  CAPTURE(check.message);
  CHECK(check.ok);
  // dJ/dy0 is the sensitivity to the initial state in both modes.
  const auto adjoint = gradient<double>(problem, problem.y0, problem.p);
  const auto tangent = tangent_gradient(problem);
  CHECK(std::abs(adjoint.dJ_dy0[0]) > 1e-3);
  CHECK(relative_difference(adjoint.dJ_dy0, tangent.dJ_dy0) <= 1e-12);
}

TEST_CASE("Hessian-vector products match finite differences of gradients") {
  const models::LotkaVolterra model;
  for (const ButcherTableau* tableau : {&tableaux::rk4, &tableaux::dopri5}) {
    CAPTURE(tableau->name);
    const auto problem = make_problem(model, *tableau, false);
    const std::vector<double> v = {0.3, -0.2, 0.1, 0.25};
    const std::vector<double> hv = hessian_vector_product(problem, v);
    const double epsilon = 1e-5;
    std::vector<double> plus = problem.p, minus = problem.p;
    for (std::size_t j = 0; j < v.size(); ++j) plus[j] += epsilon * v[j], minus[j] -= epsilon * v[j];
    const auto gp = gradient<double>(problem, problem.y0, plus);
    const auto gm = gradient<double>(problem, problem.y0, minus);
    std::vector<double> fd(v.size());
    for (std::size_t j = 0; j < v.size(); ++j) fd[j] = (gp.dJ_dp[j] - gm.dJ_dp[j]) / (2 * epsilon);
    CHECK(relative_difference(hv, fd) <= 1e-6);
    // And the same product under revolve checkpointing.
    CHECK(hessian_vector_product(problem, v, {CheckpointOptions::Schedule::revolve, 4}) == hv);
  }
}

TEST_CASE("diagnostics count the work") {
  const models::VanDerPol model;
  const auto problem = make_problem(model, tableaux::rk4, false);
  const auto result = gradient<double>(problem, problem.y0, problem.p,
                                       {CheckpointOptions::Schedule::revolve, 10});
  REQUIRE(result.ok());
  const auto& d = result.diagnostics;
  CHECK(d.steps == 38 + 38 + 75);  // even steps landing on the observations at 0.375, 0.75
  CHECK(d.adjoint_steps == d.steps);
  CHECK(d.forward_steps == revolve_min_recomputations(d.steps, 10));
  // Forward steps evaluate 4 stages; an adjoint step recomputes the 3 slopes its stage
  // states need, but the last one takes its whole step (keeping its stages) to reach y_N.
  CHECK(d.rhs_evaluations == 4 * d.forward_steps + 3 * (d.adjoint_steps - 1) + 4);
  CHECK(d.vjp_evaluations == 4 * d.steps);
  CHECK(d.schedule == "revolve");
  CHECK(d.derivatives == "dense");  // Van der Pol has no hand-written VJP
}

TEST_CASE("store-all: one forward solve, adaptive steps included, and no recomputation") {
  // dopri5 is FSAL: 6 new slopes per accepted step forward. Store-all keeps each step's
  // stage states, so the backward sweep evaluates no right-hand side at all, and takes
  // no VJP at the last stage (nothing flows into it).
  const models::VanDerPol model;
  const auto problem = make_problem(model, tableaux::dopri5, true);
  const auto result = gradient<double>(problem, problem.y0, problem.p);
  REQUIRE(result.ok());
  const auto& d = result.diagnostics;
  CHECK(d.schedule == "store_all");
  CHECK(d.sequence_steps == 0);  // no solve just to find the steps
  StepSequence sequence;
  REQUIRE(problem_step_sequence(problem, sequence).ok());
  CHECK(d.steps == sequence.size());
  CHECK(d.vjp_evaluations == 6 * d.steps);
  const double per_step = double(d.rhs_evaluations) / double(d.steps);
  CAPTURE(per_step);
  CHECK(per_step <= 7.0);  // 6, the first step's 7, the initial-step heuristic's 2, rejections
  CHECK(per_step >= 6.0);
  // A record holds the 6 stage states an adjoint flows into (3 values each, the
  // quadrature's included): the memory says so.
  CHECK(d.checkpoint_bytes == d.steps * 6 * 3 * sizeof(double));
}

TEST_CASE("a gradient's checkpoint store draws on the memory of the context it is given") {
  // 300000 RK4 steps keep 28.8 MB of stage records: a block a pool recycles.
  const models::VanDerPol model;
  auto problem = make_problem(model, tableaux::rk4, false);
  problem.integrate.step = 5e-6;
  release_recycled_memory();
  std::vector<double> gradients[2];
  {
    Context context;
    problem.integrate.context = &context;
    const auto result = gradient<double>(problem, problem.y0, problem.p);
    REQUIRE(result.ok());
    CHECK(result.diagnostics.checkpoint_bytes >= kRecycledBytes);
    CHECK(context.memory().kept_bytes() >= result.diagnostics.checkpoint_bytes);  // back in its pool
    CHECK(default_memory_pool().kept_bytes() == 0);
    gradients[0] = result.dJ_dp;
  }  // the context gives its memory back
  problem.integrate.context = nullptr;  // the default context's
  const auto result = gradient<double>(problem, problem.y0, problem.p);
  REQUIRE(result.ok());
  CHECK(default_memory_pool().kept_bytes() >= result.diagnostics.checkpoint_bytes);
  gradients[1] = result.dJ_dp;
  CHECK(gradients[0] == gradients[1]);
  release_recycled_memory();
}

TEST_CASE("observations at the start, the end and twice at one time land on the right states") {
  const models::VanDerPol model;
  auto problem = make_problem(model, tableaux::rk4, false);
  problem.objective.observation_times = {0.0, 0.75, 0.75, 1.5};
  const auto adjoint = gradient<double>(problem, problem.y0, problem.p);
  REQUIRE(adjoint.ok());
  const GradientCheckReport check = check_gradient(problem, 1e-12, 1e-6);
  CAPTURE(check.message);
  CHECK(check.ok);

  // The value, recomputed independently with integrate() and an observer.
  IntegrateOptions options = problem.integrate;
  options.output_times = {0.75, 1.5};
  std::vector<double> y = {problem.y0[0], problem.y0[1], 0.0};
  const WithQuadrature<models::VanDerPol, Running> system{&model, &problem.objective.running};
  ExplicitRK<WithQuadrature<models::VanDerPol, Running>> stepper(system, tableaux::rk4);
  double value = 0;
  const Misfit misfit;
  REQUIRE(integrate(stepper, y.data(), problem.p.data(), options, [&](double t, const double* s) {
            for (std::size_t k = 0; k < 4; ++k)
              if (problem.objective.observation_times[k] == t) value += misfit(k, s, problem.p.data());
          }).ok());
  value += Terminal{}(y.data(), problem.p.data()) + y[2];
  CHECK(adjoint.value == doctest::Approx(value).epsilon(1e-13));
}

namespace {
struct LogOfState {  // log(y - 1), with y(0) = 1: infinite value and derivative at t = 0
  template <class T>
  T operator()(std::size_t, const T* y, const T*) const {
    using std::log;
    return log(y[0] - T(1));
  }
};
struct Drift {  // y' = -p
  static constexpr std::size_t n_state = 1, n_param = 1;
  template <class T>
  void operator()(T, const T*, const T* p, T* dydt) const {
    dydt[0] = -p[0];
  }
};
}  // namespace

TEST_CASE("NaN in an objective term is reported as that term, not returned as a gradient") {
  using Obj = Objective<NoTerm, NoTerm, LogOfState>;
  const Drift model;
  IntegrateOptions options;
  options.t1 = 2.0;
  options.step = 0.25;
  Obj objective;
  objective.observation_times = {0.0};
  const GradientProblem<Drift, Obj> problem{model, tableaux::rk4, {1.0}, {1.0}, objective, options};
  const auto result = gradient<double>(problem, problem.y0, problem.p);
  CHECK_FALSE(result.ok());
  REQUIRE(result.diagnostics.nonfinite);
  CHECK(result.diagnostics.nonfinite->phase == "observation");  // log(y) at t = 0, before it spoils lambda_0
  CHECK(result.diagnostics.nonfinite->time == 0.0);
  CHECK(result.diagnostics.nonfinite->component == 0);  // its derivative by y
  CHECK(result.diagnostics.nonfinite->describe({"y"}) ==
        "non-finite value in the objective's observation term at t = 0 (its derivative by state 'y')");
  CHECK_FALSE(tangent_gradient(problem).ok());
}
