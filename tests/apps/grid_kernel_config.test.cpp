// The hand-written grid models named from a config (model.name = "gray_scott", "heat",
// "advection_diffusion", "acoustic" on a [grid]): `backsweep gradient` gives bitwise the
// gradient the C++ API gives for the same model, grid, initial fields and parameters;
// under solver.backend = "omp" (the device kernels on Thrust's OpenMP system) the gradient
// is bitwise the cpu's, for those cases and for every model of the registry.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include <hdf5.h>

#include "adjoint/discrete_adjoint.hpp"
#include "io/assembly/gradient_config.hpp"
#include "models/builtin/grid_kernels.hpp"
#include "tests/apps/run_cli.hpp"
#include "tests/h5_read.hpp"

using namespace backsweep;
namespace fs = std::filesystem;

namespace grid_kernel_config_test {

fs::path scratch() { return scratch_folder("grid_kernel_config"); }

// J = y[a] + y[b]: what the configs' terminal objectives say.
struct TwoPoints {
  std::size_t a, b;
  template <class T>
  T operator()(const T* y, const T*) const {
    return y[a] + y[b];
  }
};

double objective_attribute(hid_t file) {
  double value = NAN;
  const hid_t attribute = H5Aopen(file, "objective", H5P_DEFAULT);
  REQUIRE(attribute >= 0);
  H5Aread(attribute, H5T_NATIVE_DOUBLE, &value);
  H5Aclose(attribute);
  return value;
}

std::vector<double> concatenated(hid_t file, const std::string& group, const std::vector<std::string>& names) {
  std::vector<double> all;
  for (const std::string& name : names) {
    const std::vector<double> values = read_dataset(file, (group + "/" + name).c_str());
    all.insert(all.end(), values.begin(), values.end());
  }
  return all;
}

// A gradient.h5 as the C++ API gives it: dJ/dp is the scalars, then the parameter fields.
struct FileGradient {
  double value = NAN;
  std::vector<double> dJ_dy0, dJ_dp;
};

// `backsweep gradient` on `text` in `dir`, on `backend` ("cpu": the config's own), and
// what it wrote.
FileGradient run_gradient(const fs::path& dir, std::string text, const GridLayout& layout, const std::string& backend) {
  if (backend != "cpu") text.replace(text.find("[solver]\n"), 9, "[solver]\nbackend = \"" + backend + "\"\n");
  std::ofstream(dir / (backend + ".toml")) << text;
  const CliRun run = run_cli("gradient " + backend + ".toml --output-dir " + backend, dir);
  CAPTURE(run.err);
  REQUIRE(run.exit_code == 0);
  const hid_t file = H5Fopen((dir / backend / "gradient.h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  REQUIRE(file >= 0);
  FileGradient got{objective_attribute(file), concatenated(file, "gradient/initial", layout.fields()), {}};
  if (layout.scalar_parameters()) got.dJ_dp = read_dataset(file, "gradient/parameters");
  const std::vector<double> fields = concatenated(file, "gradient/parameter_fields", layout.parameter_fields());
  got.dJ_dp.insert(got.dJ_dp.end(), fields.begin(), fields.end());
  H5Fclose(file);
  return got;
}

template <class Gradient>
void check_bitwise(const FileGradient& got, const Gradient& expected) {
  CHECK(got.value == expected.value);
  CHECK(got.dJ_dy0 == expected.dJ_dy0);
  CHECK(got.dJ_dp == expected.dJ_dp);
}

// Runs the config through the program, then the C++ API on `model` with the config's
// own numbers, and compares value, dJ/dy0 and dJ/dp bitwise; on "omp" too.
template <class M>
void check_config_equals_api(const std::string& name, const std::string& text, const M& model, TwoPoints term) {
  const fs::path dir = scratch() / name;
  fs::create_directories(dir);
  std::ofstream(dir / "cfg.toml") << text;
  const GradientConfig config = load_gradient_config((dir / "cfg.toml").string());
  const SimulateConfig& sim = config.simulate;
  REQUIRE(sim.grid_kernel);
  REQUIRE(sim.initial_state.size() == model.state_size());
  REQUIRE(sim.parameters.size() == model.param_size());
  const GradientProblem<M, Objective<TwoPoints>> problem{
      model, sim.method, sim.initial_state, sim.parameters, Objective<TwoPoints>{term}, sim.integrate};
  const auto api = gradient<double>(problem, problem.y0, problem.p, config.checkpointing.options);
  REQUIRE(api.ok());
  // Not trivially equal: the objective reaches the parameters.
  CHECK(std::any_of(api.dJ_dp.begin(), api.dJ_dp.end(), [](double g) { return g != 0.0; }));

  const GridLayout& layout = *sim.fields();
  check_bitwise(run_gradient(dir, text, layout, "cpu"), api);
  if (BACKSWEEP_OPENMP_BUILT) check_bitwise(run_gradient(dir, text, layout, "omp"), api);
}

// The sections every case shares: RK4, 40 steps, store-all, the adjoint.
std::string tail(const std::string& terminal, double step) {
  return "[time]\nend = " + std::to_string(40 * step) + "\n[solver]\nmethod = \"rk4\"\nstep = " +
         std::to_string(step) + "\n[objective]\nterminal = \"" + terminal +
         "\"\n[gradient]\nmode = \"adjoint\"\n[checkpointing]\nschedule = \"store_all\"\n";
}

}  // namespace grid_kernel_config_test

TEST_CASE("Grid kernels named in a config give the C++ API's gradient bitwise") {
  using namespace grid_kernel_config_test;
  SUBCASE("gray_scott, 2-D periodic, default and given parameters") {
    const Grid grid({12, 10}, {25.0, 20.0}, {Boundary::periodic, Boundary::periodic});
    check_config_equals_api("gray_scott",
                            "[grid]\nshape = [12, 10]\nextent = [25.0, 20.0]\n[model]\nname = \"gray_scott\"\n"
                            "[parameters]\nD1 = 0.2\nD2 = 0.1\n"
                            "[initial]\nu = \"1 - 0.5*exp(-((x-10)^2 + (y-12)^2)/8)\"\nv = \"0.25*exp(-((x-10)^2 + "
                            "(y-12)^2)/8)\"\n" +
                                tail("u[5,4] + v[6,5]", 0.5),
                            models::GrayScott(grid), {5 * 10 + 4, 120 + 6 * 10 + 5});
  }
  SUBCASE("heat with a conductivity field, Dirichlet and Neumann walls") {
    const Grid grid({9, 8}, {1.0, 1.0}, {Boundary::dirichlet, Boundary::neumann});
    check_config_equals_api("heat",
                            "[grid]\nshape = [9, 8]\nextent = [1.0, 1.0]\nboundary = [\"dirichlet\", \"neumann\"]\n"
                            "[model]\nname = \"heat\"\n[parameters]\nk = \"1 + 0.5*x*y\"\n"
                            "[initial]\nu = \"sin(3*x) * y\"\n" +
                                tail("u[4,4] + u[2,6]", 2e-4),
                            models::Heat(grid), {4 * 8 + 4, 2 * 8 + 6});
  }
  SUBCASE("advection_diffusion, 1-D, Neumann walls") {
    const Grid grid({20}, {2.0}, {Boundary::neumann});
    check_config_equals_api("advection_diffusion",
                            "[grid]\nshape = [20]\nextent = [2.0]\nboundary = \"neumann\"\n"
                            "[model]\nname = \"advection_diffusion\"\n[parameters]\nD = 0.05\nvx = 0.3\n"
                            "[initial]\nu = \"exp(-4*(x-1)^2)\"\n" +
                                tail("u[7] + u[12]", 1e-3),
                            models::AdvectionDiffusion(grid), {7, 12});
  }
  SUBCASE("acoustic with a velocity field and a Ricker source") {
    const Grid grid({12, 12}, {1.0, 1.0}, {Boundary::dirichlet, Boundary::dirichlet});
    check_config_equals_api("acoustic",
                            "[grid]\nshape = [12, 12]\nextent = [1.0, 1.0]\nboundary = \"dirichlet\"\n"
                            "[model]\nname = \"acoustic\"\n[model.source]\npoint = [6, 5]\nf0 = 10.0\nt0 = 0.05\n"
                            "[parameters]\nc = \"1 + 0.3*x\"\n[initial]\np = 0\nq = 0\n" +
                                tail("p[6,8] + p[3,5]", 1e-3),
                            models::Acoustic(grid, {6 * 12 + 5, 10.0, 0.05, 1.0}), {6 * 12 + 8, 3 * 12 + 5});
  }
}

// Every model of the registry (grid_kernels.hpp: one added later is covered unasked), on a
// 2-D grid with a wall of each kind: through the program on "omp" the objective and every
// gradient dataset are bitwise the same run's on "cpu".
TEST_CASE("Every grid model of the registry: the omp gradient is bitwise the cpu's" *
          doctest::skip(!BACKSWEEP_OPENMP_BUILT)) {
  using namespace grid_kernel_config_test;
  const Grid grid({9, 11}, {1.0, 1.2}, {Boundary::periodic, Boundary::neumann});
  for (const std::string_view name : models::grid_kernel_names) {
    CAPTURE(name);
    const auto parts = models::grid_kernel_parts(name, grid);
    REQUIRE(parts);
    const GridLayout& layout = parts->layout;
    std::string text = "[grid]\nshape = [9, 11]\nextent = [1.0, 1.2]\nboundary = [\"periodic\", \"neumann\"]\n"
                       "[model]\nname = \"" + std::string(name) + "\"\n";
    if (parts->takes_source) text += "[model.source]\npoint = [4, 5]\nf0 = 10.0\nt0 = 0.05\n";
    text += "[parameters]\n";
    for (std::size_t j = 0; j < parts->scalars.size(); ++j)
      text += parts->scalars[j] + " = " + std::to_string(0.05 * double(j + 1)) + "\n";
    for (const std::string& field : layout.parameter_fields()) text += field + " = \"1 + 0.2*x*y\"\n";
    text += "[initial]\n";
    for (std::size_t f = 0; f < layout.fields().size(); ++f)
      text += layout.fields()[f] + " = \"0.5 + 0.3*sin(2*x + " + std::to_string(f) + ")*cos(y)\"\n";
    const std::string& first = layout.fields().front();
    text += tail(first + "[4,5]*" + first + "[4,5] + " + layout.fields().back() + "[2,7]", 1e-3);

    const fs::path dir = scratch() / ("registry_" + std::string(name));
    fs::create_directories(dir);
    const FileGradient cpu = run_gradient(dir, text, layout, "cpu");
    check_bitwise(run_gradient(dir, text, layout, "omp"), cpu);
    CHECK(std::any_of(cpu.dJ_dy0.begin(), cpu.dJ_dy0.end(), [](double g) { return g != 0.0; }));
    const auto scalars_end = cpu.dJ_dp.begin() + std::ptrdiff_t(layout.scalar_parameters());
    if (layout.scalar_parameters())
      CHECK(std::any_of(cpu.dJ_dp.begin(), scalars_end, [](double g) { return g != 0.0; }));
  }
}
