// Models on grids from config files: examples/gray_scott.toml read from disk (grid,
// fields, initial fields from expressions of x and y, the objective at a grid point),
// its gradient against the forward tangent of the same solver along random directions,
// central differences per parameter, Taylor remainders along the initial fields, and
// bitwise equal under revolve; bad grid configs name file, line and key.
#include <doctest/doctest.h>

#include <hdf5.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "adjoint/discrete_adjoint.hpp"
#include "adjoint/forward_tangent.hpp"
#include "adjoint/gradient_check.hpp"
#include "io/config/config_error.hpp"
#include "io/assembly/config_objective.hpp"
#include "io/assembly/gradient_config.hpp"
#include "tests/adjoint/directional_checks.hpp"

using namespace backsweep;

namespace {

// The example, shortened to 100 steps: a test takes seconds.
GradientConfig gray_scott() {
  GradientConfig config = load_gradient_config(BACKSWEEP_SOURCE_DIR "/examples/gray_scott.toml");
  config.simulate.integrate.t1 = 50.0;
  config.simulate.integrate.output_times.clear();
  return config;
}

// The config's model and terminal term; the initial fields are the problem's y0 (they
// are numbers once read), so Taylor tests and differences can move them.
template <class F>
void with_problem(const GradientConfig& config, F&& f) {
  const SimulateConfig& sim = config.simulate;
  Objective<ConfigTerminal> objective;
  objective.terminal.config = &config;
  const GradientProblem<ExpressionModel, Objective<ConfigTerminal>> problem{
      *sim.expression_model, sim.method, sim.initial_state, sim.parameters, objective, sim.integrate};
  f(problem);
}

std::string write_config(const std::string& text) {
  static int counter = 0;
  const auto path = std::filesystem::temp_directory_path() /
                    ("backsweep_grid_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++) + ".toml");
  std::ofstream(path, std::ios::binary) << text;
  return path.string();
}

const char* const kHeat = R"toml([grid]
shape = [6, 8]
extent = [1.0, 2.0]
boundary = ["neumann", "dirichlet"]
[model]
fields = ["u"]
parameters = ["c"]
parameter_fields = ["k"]
[model.equations]
u = "div_grad(k, u) - c*dx(u)"
[parameters]
c = 0.5
k = "1 + 0.5*x*y"
[initial]
u = "sin(pi*x/2)*(y < 0.5)"
[time]
end = 0.01
[solver]
method = "rk4"
step = 0.001
[objective]
terminal = "u[3, 4]^2 + mean(u) + 0.1*sum(k)"
)toml";

// An HDF5 file holding one dataset of doubles.
std::string write_dataset(const std::string& name, const std::vector<hsize_t>& shape, const std::vector<double>& values) {
  const auto path = std::filesystem::temp_directory_path() / ("backsweep_grid_test_" + std::to_string(::getpid()) + ".h5");
  const hid_t file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  const hid_t space = H5Screate_simple(int(shape.size()), shape.data(), nullptr);
  const hid_t set = H5Dcreate2(file, name.c_str(), H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  H5Dwrite(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data());
  H5Dclose(set);
  H5Sclose(space);
  H5Fclose(file);
  return path.string();
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

}  // namespace

TEST_CASE("the Gray-Scott example: grid, fields and initial fields read from disk") {
  const GradientConfig config = gray_scott();
  const SimulateConfig& sim = config.simulate;
  REQUIRE(sim.fields());
  CHECK(sim.fields()->grid().shape() == std::vector<std::size_t>{64, 64});
  CHECK(sim.initial_state.size() == 2 * 64 * 64);
  CHECK(sim.parameters == std::vector<double>{8e-5, 4e-5, 0.024, 0.06});
  const Grid& grid = sim.fields()->grid();
  for (std::size_t point : {0u, 41u * 64u + 25u, 42u * 64u + 30u}) {
    const auto at = grid.position(point);
    const double y = grid.coordinate(0, at[0]), x = grid.coordinate(1, at[1]);
    const bool inside = x >= 1 && x <= 1.5 && y >= 1 && y <= 1.5;
    const double s = std::sin(4 * M_PI * x) * std::sin(4 * M_PI * y);
    const double v = inside ? s * s / 4 : 0.0;
    CHECK(sim.initial_state[4096 + point] == doctest::Approx(v).epsilon(1e-14));
    CHECK(sim.initial_state[point] == doctest::Approx(1 - 2 * v).epsilon(1e-14));
  }
  CHECK(config.parameters.size() == 4);
}

TEST_CASE("Gray-Scott from the config: adjoint = forward tangent, = FD, Taylor rate 2, bitwise under revolve") {
  with_problem(gray_scott(), [](const auto& problem) {
    const auto adjoint = gradient<double>(problem, problem.y0, problem.p);
    REQUIRE(adjoint.ok());
    testing::check_against_tangent(problem, adjoint, 2);
    testing::check_parameters_by_differences(problem, adjoint);
    auto v_y0 = testing::random_direction(problem.y0.size(), 9);
    for (double& x : v_y0) x *= 0.05;
    const TaylorTestReport taylor = taylor_test(problem, std::vector<double>(4, 0.0), v_y0, 0.5);
    CAPTURE(taylor.min_rate);
    CHECK(taylor.ok);
    const auto revolve = gradient<double>(problem, problem.y0, problem.p, {CheckpointOptions::Schedule::revolve, 7});
    REQUIRE(revolve.ok());
    CHECK(revolve.dJ_dy0 == adjoint.dJ_dy0);
    CHECK(revolve.dJ_dp == adjoint.dJ_dp);
  });
}

TEST_CASE("heat with a conductivity field: the parameter field's gradient = tangent, Taylor rate 2") {
  const std::string path = write_config(kHeat);
  const GradientConfig config = load_gradient_config(path);
  std::filesystem::remove(path);
  REQUIRE(config.simulate.parameters.size() == 1 + 48);
  CHECK(config.simulate.parameters[1 + 5 * 8 + 7] == doctest::Approx(1 + 0.5 * (5.5 / 6) * (8 * 2.0 / 9)));
  with_problem(config, [](const auto& problem) {
    const auto adjoint = gradient<double>(problem, problem.y0, problem.p);
    const auto tangent = tangent_gradient(problem);  // every column: 49 parameters, 48 states
    REQUIRE(adjoint.ok());
    REQUIRE(tangent.ok());
    double scale = 0, difference = 0;
    for (std::size_t j = 0; j < adjoint.dJ_dp.size(); ++j) {
      scale = std::max(scale, std::abs(tangent.dJ_dp[j]));
      difference = std::max(difference, std::abs(adjoint.dJ_dp[j] - tangent.dJ_dp[j]));
    }
    for (std::size_t i = 0; i < adjoint.dJ_dy0.size(); ++i)
      difference = std::max(difference, std::abs(adjoint.dJ_dy0[i] - tangent.dJ_dy0[i]));
    CHECK(difference <= 1e-10 * scale);
    auto v_p = testing::random_direction(problem.p.size(), 3);
    for (double& x : v_p) x *= 0.1;
    const TaylorTestReport taylor = taylor_test(problem, v_p, {}, 0.5);
    CAPTURE(taylor.min_rate);
    CHECK(taylor.ok);
  });
}

TEST_CASE("bad grid configs: file, line and key") {
  struct Case {
    std::string text, key, says;
  };
  const std::vector<Case> cases{
      {replaced(kHeat, "shape = [6, 8]", "shape = [6, 0]"), "grid.shape", "whole number of points"},
      {replaced(kHeat, "shape = [6, 8]", "shape = [60000, 60000, 60000]"), "grid.shape", "2^30 points"},
      {replaced(kHeat, "shape = [6, 8]", "shape = [30000, 30000]"), "grid.shape", "bytes"},
      {replaced(kHeat, "extent = [1.0, 2.0]", "extent = [1.0]"), "grid.extent", "one length per axis"},
      {replaced(kHeat, "\"neumann\", \"dirichlet\"", "\"neumann\", \"wall\""), "grid.boundary", "unknown boundary"},
      {replaced(kHeat, "div_grad(k, u)", "grad(u)"), "model.equations.u", "unknown function 'grad'"},
      {replaced(kHeat, "div_grad(k, u)", "div_grad(u)"), "model.equations.u", "takes two fields (k, u)"},
      {replaced(kHeat, "div_grad(k, u)", "lap(c)"), "model.equations.u", "'c' is neither"},
      {replaced(kHeat, "dx(u)", "dz(u)"), "model.equations.u", "needs a grid with a z axis"},
      {replaced(kHeat, "u = \"sin(pi*x/2)*(y < 0.5)\"", "u = \"w + 1\""), "initial.u", "unknown name 'w'"},
      {replaced(kHeat, "u = \"sin(pi*x/2)*(y < 0.5)\"", "u = \"u + 1\""), "initial.u", "uses the field it defines"},
      {replaced(kHeat, "k = \"1 + 0.5*x*y\"", "k = \"u\""), "parameters.k", "not of the fields"},
      {replaced(kHeat, "k = \"1 + 0.5*x*y\"", "k = \"log(x - 1)\""), "parameters.k", "at grid point k[0,0]"},
      {replaced(kHeat, "k = \"1 + 0.5*x*y\"\n", ""), "parameters.k", "is required"},
      {replaced(kHeat, "fields = [\"u\"]", "fields = [\"x\"]"), "model.fields", "declared twice"},
      {replaced(kHeat, "fields = [\"u\"]", "fields = [\"lap\"]"), "model.fields", "grid operator"},
      {replaced(kHeat, "u[3, 4]^2", "u[6, 4]^2"), "objective.terminal", "outside the grid"},
      {replaced(kHeat, "u[3, 4]^2", "u^2"), "objective.terminal", "is a field"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.says);
    const std::string path = write_config(c.text);
    try {
      load_gradient_config(path);
      FAIL("loaded");
    } catch (const ConfigError& error) {
      CHECK(error.key() == c.key);
      CHECK(error.where().line > 0);
      CHECK(std::string(error.what()).find(c.says) != std::string::npos);
      CAPTURE(error.what());
    }
    std::filesystem::remove(path);
  }
}

TEST_CASE("initial fields from an HDF5 dataset shaped like the grid; a wrong shape is refused by key") {
  std::vector<double> u0(48);
  for (std::size_t i = 0; i < u0.size(); ++i) u0[i] = 0.01 * double(i);
  const std::string data = write_dataset("u0", {6, 8}, u0);
  const auto with = [&](const std::string& source) {
    return replaced(kHeat, "u = \"sin(pi*x/2)*(y < 0.5)\"", "u = " + source);
  };
  const std::string path = write_config(with("{ file = \"" + data + "\", dataset = \"u0\" }"));
  const GradientConfig config = load_gradient_config(path);
  CHECK(config.simulate.initial_state == u0);
  std::filesystem::remove(path);
  const std::string transposed = write_dataset("u0", {8, 6}, u0);
  struct Case {
    std::string source, says;
  };
  for (const Case& c : {Case{"{ file = \"" + transposed + "\", dataset = \"u0\" }", "has shape [8, 6]; the grid's is [6, 8]"},
                        Case{"{ file = \"" + transposed + "\" }", "no dataset 'u'"},
                        Case{"{ file = \"no_such.h5\" }", "no such file"},
                        Case{"{ dataset = \"u0\" }", "needs file"},
                        Case{"true", "must be a number, an expression string, or { file"}}) {
    CAPTURE(c.says);
    const std::string bad = write_config(with(c.source));
    try {
      load_gradient_config(bad);
      FAIL("loaded");
    } catch (const ConfigError& error) {
      CHECK(error.key() == "initial.u");
      CHECK(error.where().line == 15);  // initial.u in kHeat
      CAPTURE(error.what());
      CHECK(std::string(error.what()).find(c.says) != std::string::npos);
    }
    std::filesystem::remove(bad);
  }
  std::filesystem::remove(data);
}

TEST_CASE("implicit methods on a grid model from a config: linear_solver sparse is taken, and run") {
  const std::string path = write_config(
      replaced(kHeat, "method = \"rk4\"\nstep = 0.001", "method = \"sdirk2\"\nstep = 0.002\nlinear_solver = \"sparse\""));
  const GradientConfig config = load_gradient_config(path);
  std::filesystem::remove(path);
  CHECK(config.simulate.method.newton.linear_solver == LinearSolver::sparse);
  with_problem(config, [&](const auto& problem) {
    const auto adjoint = gradient<double>(problem, problem.y0, problem.p);
    REQUIRE(adjoint.ok());
    testing::check_against_tangent(problem, adjoint, 2);
  });
}
