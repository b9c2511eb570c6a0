// Sparsity patterns (declared and detected), column colourings, and sparse Jacobians and
// VJPs against the dense Dual-derived ones of models/derivatives.hpp.
#include "models/sparsity.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/builtin/acoustic.hpp"
#include "models/builtin/advection_diffusion.hpp"
#include "models/builtin/diffusion_1d.hpp"
#include "models/builtin/gray_scott.hpp"
#include "models/builtin/heat.hpp"
#include "models/builtin/registry.hpp"
#include "models/derivatives.hpp"
#include "models/expression_model.hpp"
#include "models/sparse_jacobian.hpp"

using namespace backsweep;

// Failed comparisons of patterns print their rows: "{0 1 3} {} {2}".
template <>
struct doctest::StringMaker<SparsityPattern> {
  static String convert(const SparsityPattern& pattern) {
    std::string text = std::to_string(pattern.rows) + " x " + std::to_string(pattern.columns) + ":";
    for (std::size_t i = 0; i < pattern.rows && i < 20; ++i) {
      text += " {";
      for (std::uint32_t column : pattern.row(i)) {
        text += ' ';  // appended piece by piece: GCC 12 warns about " " + to_string()
        text += std::to_string(column);
      }
      text += " }";
    }
    return text.c_str();
  }
};

namespace {

std::vector<double> point(std::size_t n, double offset) {
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = 0.5 + 0.3 * std::cos(1.7 * double(i) + offset);
  return v;
}

// A periodic chain whose coupling a parameter switches on and off: with p0 > 0 row i
// reads y_i, y_{i+1} and p1, otherwise y_i only. p0 itself only steers the branch.
struct SwitchedChain {
  static constexpr std::size_t n_state = 12, n_param = 2;
  template <class T>
  void operator()(T t, const T* y, const T* p, T* dydt) const {
    using std::exp, std::sin;
    for (std::size_t i = 0; i < n_state; ++i) {
      if (p[0] > T(0)) dydt[i] = y[i] * y[(i + 1) % n_state] - p[1] * sin(y[i]);
      else dydt[i] = exp(-y[i]) * t;
    }
  }
};

// Every function a model may apply to a Dual, each row reading its own inputs.
struct EveryFunction {
  static constexpr std::size_t n_state = 6, n_param = 3;
  template <class T>
  void operator()(T t, const T* y, const T* p, T* dydt) const {
    using std::abs, std::acos, std::asin, std::atan, std::atan2, std::cos, std::cosh, std::erf,
        std::exp, std::log, std::log10, std::max, std::min, std::pow, std::sin, std::sinh,
        std::sqrt, std::tan, std::tanh;
    dydt[0] = sqrt(y[0]) + exp(y[1]) * log(p[0]) - log10(y[0]) / T(3);
    dydt[1] = sin(y[1]) * cos(y[2]) + tan(y[1]) - tanh(p[1]);
    dydt[2] = abs(-y[2]) + pow(y[3], p[2]) + pow(y[2], 3) + pow(T(2), y[4]);
    dydt[3] = min(y[3], y[4]) + max(y[3], y[5]) + atan(y[3]) * t;
    dydt[4] = atan2(y[4], p[0]) + asin(y[4]) - acos(y[5]) + erf(y[4]);
    T sum = sinh(y[5]);
    sum += cosh(y[0]);
    sum -= T(2) * y[5];
    sum *= p[1];
    sum /= -y[5];
    dydt[5] = y[5] < T(0.5) ? sum : T(1) - sum;
  }
};

// Every output reads every state: 17 colours, plus one that p0 and p1 share (they act
// on the even and the odd rows). So sweeps of 8, 8 and 2 lanes (8, 8 and 1 for df/dy
// alone), the 8-lane buffer serving two passes.
struct DenseCoupling {
  static constexpr std::size_t n_state = 17, n_param = 2;
  template <class T>
  void operator()(T t, const T* y, const T* p, T* dydt) const {
    using std::sin;
    T sum(0);
    for (std::size_t j = 0; j < n_state; ++j) sum += sin(y[j]) * T(double(j + 1));
    for (std::size_t i = 0; i < n_state; ++i) dydt[i] = p[i % 2] * sum * y[i] + t;
  }
};

// Diffusion1D that counts every call of its right-hand side, on any scalar.
struct CountedDiffusion {
  models::Diffusion1D inner;
  mutable std::size_t calls = 0;
  std::size_t state_size() const { return inner.state_size(); }
  std::size_t param_size() const { return inner.param_size(); }
  SparsityPattern sparsity() const { return inner.sparsity(); }
  template <class T>
  void operator()(T t, const T* y, const T* p, T* dydt) const {
    ++calls;
    inner(t, y, p, dydt);
  }
};

// No two columns of one colour in any row, checked row by row.
bool colouring_is_valid(const SparsityPattern& pattern, const ColumnColouring& colouring) {
  if (colouring.colour_of.size() != pattern.columns) return false;
  for (std::uint32_t c : colouring.colour_of)
    if (c >= colouring.colours) return false;
  for (std::size_t j = 0; j < pattern.rows; ++j)
    if (colouring.colour_of[j] >= colouring.state_colours) return false;
  for (std::size_t i = 0; i < pattern.rows; ++i) {
    std::vector<std::uint32_t> colours;
    for (std::uint32_t column : pattern.row(i)) colours.push_back(colouring.colour_of[column]);
    std::sort(colours.begin(), colours.end());
    if (std::adjacent_find(colours.begin(), colours.end()) != colours.end()) return false;
  }
  return true;
}

// The sparse Jacobian, both VJPs and the state-only evaluation against the dense
// Dual-derived Jacobian and VJP at (t, y, p).
template <class M>
void check_against_dense(const M& model, const SparsityPattern& pattern, double t,
                         const std::vector<double>& y, const std::vector<double>& p) {
  const std::size_t n = state_size(model), np = param_size(model);
  Derivatives<M> dense(model);
  std::vector<double> jacobian(n * (n + np));
  dense.derived_jacobian(t, y.data(), p.data(), jacobian.data(), jacobian.data() + n * n);
  const auto entry = [&](std::size_t i, std::size_t column) {
    return column < n ? jacobian[i * n + column] : jacobian[n * n + i * np + (column - n)];
  };
  double scale = 1.0;
  for (double x : jacobian) scale = std::max(scale, std::abs(x));

  SparseJacobian<M> sparse(model, pattern);
  sparse.evaluate(t, y.data(), p.data());
  CHECK(sparse.model_evaluations() == (sparse.colouring().colours + 7) / 8);
  std::vector<bool> in_pattern(n * (n + np), false);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t nz = pattern.row_start[i]; nz < pattern.row_start[i + 1]; ++nz) {
      const std::size_t column = pattern.column_index[nz];
      in_pattern[i * (n + np) + column] = true;
      CAPTURE(i);
      CAPTURE(column);
      CHECK(std::abs(sparse.values()[nz] - entry(i, column)) <= 1e-14 * scale);
    }
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t column = 0; column < n + np; ++column)
      if (!in_pattern[i * (n + np) + column]) CHECK(entry(i, column) == 0.0);

  // VJPs: the error of a sum of products is relative to the sum of their magnitudes.
  const std::vector<double> lambda = point(n, 2.3);
  std::vector<double> expected(n + np), got(n + np, NAN), states_only(n, NAN);
  dense.derived_vjp(t, y.data(), p.data(), lambda.data(), expected.data(), expected.data() + n);
  sparse.vjp(t, y.data(), p.data(), lambda.data(), got.data(), got.data() + n);
  const std::size_t before = sparse.model_evaluations();
  sparse.vjp(t, y.data(), p.data(), lambda.data(), states_only.data(), nullptr);
  CHECK(sparse.model_evaluations() - before == (sparse.colouring().state_colours + 7) / 8);
  for (std::size_t column = 0; column < n + np; ++column) {
    double magnitude = 0.0;
    for (std::size_t i = 0; i < n; ++i) magnitude += std::abs(lambda[i] * entry(i, column));
    CAPTURE(column);
    CHECK(std::abs(got[column] - expected[column]) <= 1e-14 * magnitude);
    if (column < n) CHECK(std::abs(states_only[column] - expected[column]) <= 1e-14 * magnitude);
  }

  // df/dy alone: the state columns' values are those of the full evaluation.
  const std::vector<double> full(sparse.values().begin(), sparse.values().end());
  sparse.evaluate(t, y.data(), p.data(), JacobianColumns::states);
  for (std::size_t nz = 0; nz < pattern.nnz(); ++nz)
    if (pattern.column_index[nz] < n) CHECK(sparse.values()[nz] == full[nz]);
}

}  // namespace

TEST_CASE("from_rows sorts and merges columns; is_valid names what is wrong") {
  const SparsityPattern pattern = SparsityPattern::from_rows(3, 1, {{2, 0, 2}, {}, {3, 1}});
  CHECK(pattern.row_start == std::vector<std::size_t>{0, 2, 2, 4});
  CHECK(pattern.column_index == std::vector<std::uint32_t>{0, 2, 1, 3});
  CHECK(pattern.nnz() == 4);
  CHECK(pattern.param_size() == 1);
  CHECK(pattern.is_valid());
  CHECK_THROWS_AS(SparsityPattern::from_rows(2, 0, {{0}}), std::invalid_argument);
  CHECK_THROWS_AS(SparsityPattern::from_rows(1, 1, {{2}}), std::invalid_argument);

  const auto problem = [&](auto change) {
    SparsityPattern broken = pattern;
    change(broken);
    std::string error;
    CHECK_FALSE(broken.is_valid(&error));
    return error;
  };
  CHECK(problem([](SparsityPattern& s) { s.column_index[1] = 0; }).find("strictly") != std::string::npos);
  CHECK(problem([](SparsityPattern& s) { s.column_index[3] = 4; }).find("outside") != std::string::npos);
  CHECK(problem([](SparsityPattern& s) { s.row_start.pop_back(); }).find("rows + 1") != std::string::npos);
  CHECK(problem([](SparsityPattern& s) { s.row_start[2] = 1; }).find("decreases") != std::string::npos);
  CHECK(problem([](SparsityPattern& s) { s.columns = 2; }).find("one column per state") != std::string::npos);
}

TEST_CASE("detect_sparsity finds Diffusion1D's declared pattern") {
  for (std::size_t n : {1, 2, 3, 50}) {
    CAPTURE(n);
    const models::Diffusion1D model(n);
    const SparsityPattern declared = model.sparsity();
    REQUIRE(declared.is_valid());
    CHECK(declared.nnz() == (n == 1 ? 3 : 3 * n - 2 + 2 * n));
    const std::vector<double> y = point(n, 0.1);
    CHECK(detect_sparsity(model, 0.0, y.data(), model.default_params.data()) == declared);
  }
}

TEST_CASE("detect_sparsity finds the patterns of the built-in models") {
  using Rows = std::vector<std::vector<std::uint32_t>>;
  const auto detected = [](const auto& model) {
    const std::vector<double> y = point(state_size(model), 0.4);
    return detect_sparsity(model, 0.3, y.data(), model.default_params.data());
  };
  // Columns: states, then parameters.
  CHECK(detected(models::Lorenz63{}) ==
        SparsityPattern::from_rows(3, 3, Rows{{0, 1, 3}, {0, 1, 2, 4}, {0, 1, 2, 5}}));
  CHECK(detected(models::VanDerPol{}) == SparsityPattern::from_rows(2, 1, Rows{{1}, {0, 1, 2}}));
  CHECK(detected(models::LotkaVolterra{}) ==
        SparsityPattern::from_rows(2, 4, Rows{{0, 1, 2, 3}, {0, 1, 4, 5}}));
  CHECK(detected(models::HarmonicOscillator{}) ==
        SparsityPattern::from_rows(2, 2, Rows{{1}, {0, 1, 2, 3}}));
  CHECK(detected(models::Robertson{}) ==
        SparsityPattern::from_rows(3, 3, Rows{{0, 1, 2, 3, 5}, {0, 1, 2, 3, 4, 5}, {1, 4}}));
}

TEST_CASE("detect_sparsity follows the branch taken at the evaluation point") {
  const SwitchedChain model;
  const std::vector<double> y = point(12, 0.0);
  const double coupled[2] = {1.0, 0.5}, uncoupled[2] = {-1.0, 0.5};
  std::vector<std::vector<std::uint32_t>> chain(12), diagonal(12);
  for (std::uint32_t i = 0; i < 12; ++i) {
    chain[i] = {i, (i + 1) % 12, 13};
    diagonal[i] = {i};
  }
  CHECK(detect_sparsity(model, 0.2, y.data(), coupled) == SparsityPattern::from_rows(12, 2, chain));
  CHECK(detect_sparsity(model, 0.2, y.data(), uncoupled) ==
        SparsityPattern::from_rows(12, 2, diagonal));
}

TEST_CASE("the tracer computes the model's values and the dependencies of every function") {
  const EveryFunction model;
  for (double y5 : {0.3, 0.7}) {  // both sides of the last row's branch
    CAPTURE(y5);
    const std::vector<double> y{0.3, 0.4, 0.5, 0.6, 0.45, y5}, p{1.5, 0.8, 2.0};
    std::vector<double> f(6);
    model(0.3, y.data(), p.data(), f.data());
    detail::DependencyTape tape;
    std::vector<detail::DependencyTracer> ty(6), tp(3), tf(6);
    for (std::uint32_t j = 0; j < 6; ++j) ty[j] = {y[j], tape.variable(j), &tape};
    for (std::uint32_t j = 0; j < 3; ++j) tp[j] = {p[j], tape.variable(6 + j), &tape};
    model(detail::DependencyTracer(0.3), ty.data(), tp.data(), tf.data());
    for (std::size_t i = 0; i < 6; ++i) CHECK(tf[i].v == doctest::Approx(f[i]).epsilon(1e-15));

    // min and max depend on both operands whichever they pick (max(y3, y5) picks y5 only
    // when y5 > 0.6), so the pattern holds on both sides of the branch.
    CHECK(detect_sparsity(model, 0.3, y.data(), p.data()) ==
          SparsityPattern::from_rows(
              6, 3, {{0, 1, 6}, {1, 2, 7}, {2, 3, 4, 8}, {3, 4, 5}, {4, 5, 6}, {0, 5, 7}}));
    check_against_dense(model, detect_sparsity(model, 0.3, y.data(), p.data()), 0.3, y, p);
  }
}

TEST_CASE("detect_sparsity on a config-file model keeps a parameter exponent's column and both of min's") {
  const ExpressionModel model = ExpressionModel::parse(
      {"x", "y", "z"}, {"a", "m"}, {"a*x^m + y^2", "min(y, z) + t", "2"});
  const double y[3] = {0.9, 0.5, 0.7}, p[2] = {1.5, 2.0};  // m = 2: an integer exponent
  CHECK(detect_sparsity(model, 0.0, y, p) ==
        SparsityPattern::from_rows(3, 2, {{0, 1, 3, 4}, {1, 2}, {}}));
}

TEST_CASE("a config model's pattern holds on both sides of its branches") {
  const ExpressionModel model = ExpressionModel::parse(
      {"x", "y", "z"}, {"a", "m"}, {"if(x > 0, a*y, z)", "max(x, z) + y^m", "if(y < 0 and z < 0, 1, 2)"});
  const SparsityPattern pattern = model.sparsity();
  // The condition has no derivative; both branches' columns are kept, as are y^m's
  // exponent's at m = 0 (where the value is 1 whatever y is).
  CHECK(pattern == SparsityPattern::from_rows(3, 2, {{1, 2, 3}, {0, 1, 2, 4}, {}}));
  for (const std::vector<double>& y : {std::vector<double>{0.5, 0.3, -0.2}, std::vector<double>{-0.5, 0.3, 0.2}}) {
    CAPTURE(y[0]);
    check_against_dense(model, pattern, 0.1, y, {1.5, 2.0});
  }
}

TEST_CASE("on a grid, a config model's pattern is its stencils' footprints, as the built-in kernels' are") {
  const Grid periodic({6, 5}, {1.0, 1.0}, {Boundary::periodic, Boundary::periodic});
  const Grid walls({6, 5}, {1.0, 1.0}, {Boundary::dirichlet, Boundary::neumann});
  for (const Grid* on : {&periodic, &walls}) {
    const Grid& grid = *on;
    CAPTURE(on == &periodic);
    const std::size_t n = grid.points();
    const ExpressionModel heat = ExpressionModel::parse(FieldEquations(grid, {"u"}, {"k"}, 0), {}, {"div_grad(k, u)"});
    const SparsityPattern pattern = heat.sparsity();
    CHECK(pattern == models::Heat(grid).sparsity());
    // Five points of u and of k in every row; fewer at Dirichlet walls, where the ghost
    // value is no unknown.
    if (on == &periodic) CHECK(pattern.nnz() == 10 * n);
    else CHECK(pattern.nnz() < 10 * n);
    check_against_dense(heat, pattern, 0.0, point(n, 0.3), point(n, 1.1));

    const ExpressionModel gray_scott = ExpressionModel::parse(
        FieldEquations(grid, {"u", "v"}, {}, 4), {"D1", "D2", "gamma", "kappa"},
        {"D1*lap(u) - u*v^2 + gamma*(1 - u)", "D2*lap(v) + u*v^2 - (gamma + kappa)*v"});
    CHECK(gray_scott.sparsity() == models::GrayScott(grid).sparsity());
    const std::vector<double> p{8e-5, 4e-5, 0.024, 0.06};
    check_against_dense(gray_scott, gray_scott.sparsity(), 0.0, point(2 * n, 0.4), p);

    // A branch on the state: the reaction's columns whichever way it goes.
    const ExpressionModel switched = ExpressionModel::parse(FieldEquations(grid, {"u"}, {}, 1), {"c"},
                                                            {"lap(u) + if(u > 0.5, c*u, 0)"});
    const SparsityPattern both = switched.sparsity();
    for (double phase : {0.2, 0.9}) check_against_dense(switched, both, 0.0, point(n, phase), {2.0});
  }
  const Grid cube({4, 3, 5}, {1.0, 1.0, 1.0}, {Boundary::neumann, Boundary::periodic, Boundary::dirichlet});
  const models::AdvectionDiffusion advection(cube);
  check_against_dense(advection, advection.sparsity(), 0.0, point(60, 0.2), {0.1, 0.3, -0.2, 0.5});
  const models::Acoustic acoustic(walls, models::AcousticSource{7, 4.0, 0.25, 1.0});
  check_against_dense(acoustic, acoustic.sparsity(), 0.1, point(60, 0.2), point(30, 1.2));
}

TEST_CASE("colourings are valid; a tridiagonal pattern takes 3 colours") {
  const SparsityPattern diffusion = models::Diffusion1D(50).sparsity();
  const ColumnColouring colouring = colour_columns(diffusion);
  CHECK(colouring_is_valid(diffusion, colouring));
  CHECK(colouring.state_colours == 3);
  CHECK(colouring.colours == 5);  // D and k touch every row: a colour each

  std::vector<std::vector<std::uint32_t>> rows(20);
  for (std::uint32_t i = 0; i < 20; ++i)
    for (std::uint32_t j = (i == 0 ? 0 : i - 1); j <= std::min(i + 1, 19u); ++j) rows[i].push_back(j);
  const SparsityPattern tridiagonal = SparsityPattern::from_rows(20, 0, rows);
  CHECK(colour_columns(tridiagonal).colours == 3);
  CHECK(colour_columns(tridiagonal).state_colours == 3);

  std::mt19937 random(7);
  for (int trial = 0; trial < 200; ++trial) {
    const std::size_t n = 1 + random() % 60, np = random() % 5, width = random() % 7;
    std::vector<std::vector<std::uint32_t>> random_rows(n);
    std::size_t longest = 0;
    for (auto& row : random_rows) {
      for (std::size_t k = random() % (width + 1); k > 0; --k)
        row.push_back(static_cast<std::uint32_t>(random() % (n + np)));
      std::sort(row.begin(), row.end());
      longest = std::max<std::size_t>(longest, std::unique(row.begin(), row.end()) - row.begin());
    }
    const SparsityPattern pattern = SparsityPattern::from_rows(n, np, random_rows);
    const ColumnColouring c = colour_columns(pattern);
    CAPTURE(trial);
    CHECK(colouring_is_valid(pattern, c));
    CHECK(c.colours >= longest);  // a row's columns all need different colours
  }

  SparsityPattern broken = diffusion;
  broken.column_index[0] = 7;
  CHECK_THROWS_AS(colour_columns(broken), std::invalid_argument);
}

TEST_CASE("on a grid, state columns take a lattice colouring: 7 for a 3-D 7-point stencil, 5 in 2-D") {
  // Walls and wraps of any size: a lattice that does not fit a wrap is refused and another
  // taken, greedy's kept where it takes fewer, and every colouring is valid.
  const Grid cube({10, 9, 8}, {1.0, 1.0, 1.0}, {Boundary::dirichlet, Boundary::neumann, Boundary::dirichlet});
  const Grid wrapped({7, 5, 6}, {1.0, 1.0, 1.0}, {Boundary::periodic, Boundary::periodic, Boundary::dirichlet});
  const Grid square({12, 11}, {1.0, 1.0}, {Boundary::dirichlet, Boundary::dirichlet});
  const Grid ring({9, 10}, {1.0, 1.0}, {Boundary::periodic, Boundary::periodic});
  const Grid line({10}, {1.0}, {Boundary::periodic});
  for (const Grid* grid : {&cube, &wrapped, &square, &ring, &line}) {
    CAPTURE(grid->points());
    const models::Heat heat(*grid);
    const SparsityPattern pattern = heat.sparsity();
    const ColumnColouring greedy = colour_columns(pattern), chosen = colour_columns(pattern, grid);
    const auto lattice = detail::lattice_colouring(pattern, *grid);
    REQUIRE(lattice);
    const std::size_t lattice_colours = *std::max_element(lattice->begin(), lattice->end()) + 1;
    CHECK(colouring_is_valid(pattern, greedy));
    CHECK(colouring_is_valid(pattern, chosen));
    CHECK(chosen.state_colours == std::min(lattice_colours, greedy.state_colours));
    if (grid == &line) {
      CHECK(lattice_colours > greedy.state_colours);  // 5 against 4 round a ring of 10: greedy's kept
    } else {
      CHECK(lattice_colours < greedy.state_colours);
      CHECK(std::equal(lattice->begin(), lattice->end(), chosen.colour_of.begin()));
    }
    if (grid == &cube) CHECK(chosen.state_colours == 7);  // the least any colouring can take
    if (grid == &square) CHECK(chosen.state_colours == 5);
    check_against_dense(heat, pattern, 0.0, point(grid->points(), 0.3), point(grid->points(), 1.1));
  }
  // Two fields, each the other's neighbour at its point: a lattice per field takes 10, as
  // greedy does, and a tie keeps greedy's.
  const models::GrayScott gray_scott(square);
  const SparsityPattern pattern = gray_scott.sparsity();
  const ColumnColouring colouring = colour_columns(pattern, &square);
  CHECK(colouring_is_valid(pattern, colouring));
  CHECK(colouring.state_colours == 10);
}

TEST_CASE("sparse Jacobians and VJPs equal the dense Dual-derived ones") {
  SUBCASE("Lorenz-63") {
    const models::Lorenz63 model;
    const std::vector<double> p(model.default_params.begin(), model.default_params.end());
    check_against_dense(model, detect_sparsity(model, 0.0, point(3, 0.0).data(), p.data()), 0.0,
                        {1.0, 2.0, 20.0}, p);
  }
  SUBCASE("Robertson") {
    const models::Robertson model;
    const std::vector<double> p(model.default_params.begin(), model.default_params.end());
    const std::vector<double> y{0.9, 3e-5, 0.1};
    check_against_dense(model, detect_sparsity(model, 0.0, y.data(), p.data()), 0.0, y, p);
  }
  SUBCASE("Diffusion1D, n = 50, declared pattern") {
    const models::Diffusion1D model(50);
    check_against_dense(model, model.sparsity(), 0.0, point(50, 0.3), {0.7, 0.2});
  }
  SUBCASE("a dense model: more colours than lanes, several sweeps") {
    const DenseCoupling model;
    const std::vector<double> y = point(17, 0.9), p{0.7, -1.3};
    const SparsityPattern pattern = detect_sparsity(model, 0.1, y.data(), p.data());
    CHECK(pattern.nnz() == 17 * 18);
    CHECK(colour_columns(pattern).colours == 18);
    CHECK(colour_columns(pattern).state_colours == 17);
    check_against_dense(model, pattern, 0.1, y, p);
  }
  SUBCASE("a chain whose coupling a parameter switches") {
    const SwitchedChain model;
    for (double p0 : {1.0, -1.0}) {
      const std::vector<double> y = point(12, 0.5), p{p0, 0.6};
      check_against_dense(model, detect_sparsity(model, 0.4, y.data(), p.data()), 0.4, y, p);
    }
  }
}

TEST_CASE("a sparse VJP in Dual scalars (for second derivatives) equals the dense one") {
  using D = Dual<double, 1>;
  const models::Lorenz63 model;
  const D y[3] = {D::variable(1.0, 0), D(2.0), D(20.0)}, p[3] = {D(10.0), D(28.0), D(8.0 / 3.0)};
  const D lambda[3] = {D(0.3), D(-1.2), D(0.7)};
  D expected[6], got[6];
  Derivatives<models::Lorenz63, D>(model).derived_vjp(D(0.0), y, p, lambda, expected, expected + 3);
  SparseJacobian<models::Lorenz63, D> sparse(model, detect_sparsity(model, 0.0, point(3, 0.0).data(),
                                                                    model.default_params.data()));
  sparse.vjp(D(0.0), y, p, lambda, got, got + 3);
  for (int j = 0; j < 6; ++j) {
    CHECK(got[j].v == doctest::Approx(expected[j].v).epsilon(1e-14));
    CHECK(got[j].d[0] == doctest::Approx(expected[j].d[0]).epsilon(1e-14));
  }
}

TEST_CASE("a sparse Jacobian rejects a pattern that does not fit the model") {
  const models::Diffusion1D model(10);
  CHECK_THROWS_AS(SparseJacobian(model, models::Diffusion1D(11).sparsity()), std::invalid_argument);
  SparsityPattern unsorted = model.sparsity();
  std::swap(unsorted.column_index[0], unsorted.column_index[1]);
  CHECK_THROWS_AS(SparseJacobian(model, unsorted), std::invalid_argument);
}

TEST_CASE("Diffusion1D, n = 100000: setup in O(n), a VJP in one model call, stencil values") {
  const std::size_t n = 100'000;
  const CountedDiffusion model{models::Diffusion1D(n)};
  const std::vector<double> y = point(n, 0.0), lambda = point(n, 1.0);
  const double p[2] = {0.8, 0.3};

  const auto start = std::chrono::steady_clock::now();
  const SparsityPattern detected = detect_sparsity(model, 0.0, y.data(), p);
  SparseJacobian jacobian(model, detected);
  const double setup_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  MESSAGE("pattern detection + colouring at n = 100000: " << setup_seconds << " s");
  CHECK(setup_seconds < 1.0);  // O(n^2) would take minutes
  CHECK(detected == model.sparsity());
  CHECK(jacobian.colouring().colours == 5);

  std::vector<double> vjp_y(n), vjp_p(2);
  model.calls = 0;
  jacobian.vjp(0.0, y.data(), p, lambda.data(), vjp_y.data(), vjp_p.data());
  CHECK(model.calls <= 5);
  CHECK(model.calls == 1);  // 5 colours fit in the lanes of one Dual
  CHECK(jacobian.model_evaluations() == model.calls);

  // lambdaᵀ f_y and lambdaᵀ f_p by hand from the stencil, with zero boundary values.
  const double dx = 1.0 / double(n + 1), c = p[0] / (dx * dx);
  const auto at = [&](const std::vector<double>& v, std::size_t i) {
    return i < n ? v[i] : 0.0;  // i = -1 wraps to a huge index
  };
  for (std::size_t j : {std::size_t{0}, std::size_t{1}, std::size_t{777}, n / 2, n - 2, n - 1}) {
    CAPTURE(j);
    const double expected =
        c * (at(lambda, j - 1) - 2.0 * lambda[j] + at(lambda, j + 1)) - p[1] * lambda[j];
    CHECK(vjp_y[j] == doctest::Approx(expected).epsilon(1e-12));
  }
  double expected_dD = 0.0, expected_dk = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    expected_dD += lambda[i] * (at(y, i - 1) - 2.0 * y[i] + at(y, i + 1)) / (dx * dx);
    expected_dk -= lambda[i] * y[i];
  }
  CHECK(vjp_p[0] == doctest::Approx(expected_dD).epsilon(1e-10));
  CHECK(vjp_p[1] == doctest::Approx(expected_dk).epsilon(1e-12));

  // Without a parameter gradient: the 3 state colours, still one call.
  model.calls = 0;
  std::vector<double> states_only(n);
  jacobian.vjp(0.0, y.data(), p, lambda.data(), states_only.data(), nullptr);
  CHECK(model.calls == 1);
  CHECK(states_only == vjp_y);
}
