// Equations on a grid through the program with compiled kernels (solver.kernels, the
// default there): the objective is the interpreter's bitwise and the gradient agrees to
// round-off; under backend "omp" (two threads) the gradient is bitwise the cpu's, an ODE's
// too; where no kernel can be built the run says so in one line and gives the interpreter's
// result (backend "cuda" without a GPU: the cpu's compiled result); bad kernels keys are
// config errors naming the key.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <tuple>
#include <vector>

#include <hdf5.h>
#include <nlohmann/json.hpp>

#include "tests/apps/run_cli.hpp"
#include "tests/h5_read.hpp"

namespace fs = std::filesystem;

namespace compiled_equations_test {

fs::path scratch() { return scratch_folder("compiled_equations"); }

const std::string kGrayScott =
    "[grid]\nshape = [10, 12]\nextent = [25.0, 30.0]\nboundary = \"periodic\"\n"
    "[model]\nfields = [\"u\", \"v\"]\nparameters = [\"D1\", \"D2\", \"gamma\", \"kappa\"]\n"
    "[model.equations]\nu = \"D1*lap(u) - u*v^2 + gamma*(1 - u)\"\nv = \"D2*lap(v) + u*v^2 - (gamma + kappa)*v\"\n"
    "[parameters]\nD1 = 0.2\nD2 = 0.1\ngamma = 0.024\nkappa = 0.06\n"
    "[initial]\nv = \"0.25*exp(-((x-12)^2 + (y-10)^2)/8)\"\nu = \"1 - 2*v\"\n"
    "[time]\nend = 20.0\n[objective]\nterminal = \"u[5, 4] + v[6, 5]\"\n";

const std::string kHeat =
    "[grid]\nshape = [9, 8]\nextent = [1.0, 1.0]\nboundary = [\"dirichlet\", \"neumann\"]\n"
    "[model]\nfields = [\"u\"]\nparameter_fields = [\"k\"]\n[model.equations]\nu = \"div_grad(k, u)\"\n"
    "[parameters]\nk = \"1 + 0.5*x*y\"\n[initial]\nu = \"sin(3*x) * y\"\n"
    "[time]\nend = 0.008\n[objective]\nterminal = \"u[4, 4] + u[2, 6]\"\n";

// Large enough that the stage combinations run on OpenMP threads (OpenMpAlgebra).
const std::string kGrayScottLarge = [] {
  std::string config = kGrayScott;
  config.replace(config.find("shape = [10, 12]"), 16, "shape = [64, 128]");
  config.replace(config.find("extent = [25.0, 30.0]"), 21, "extent = [160.0, 320.0]");
  return config;
}();

struct Gradient {
  double value = 0;
  std::vector<double> initial, parameters;
};

// `gradient` of `config` with these [solver] lines; the run's stderr into `err`.
Gradient run_gradient(const std::string& name, const std::string& config, const std::string& solver, double step,
                      std::string* err = nullptr) {
  const fs::path dir = scratch() / name;
  fs::create_directories(dir);
  std::ofstream(dir / "cfg.toml") << config << "[solver]\nmethod = \"rk4\"\nstep = " << step << "\n"
                                  << solver << "kernel_cache = \"" << (scratch() / "cache").string() << "\"\n";
  const CliRun run = run_cli("gradient cfg.toml --output-dir out", dir);
  CAPTURE(run.err);
  REQUIRE(run.exit_code == 0);
  if (err) *err = run.err;
  const hid_t file = H5Fopen((dir / "out/gradient.h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  REQUIRE(file >= 0);
  Gradient gradient;
  const hid_t attribute = H5Aopen(file, "objective", H5P_DEFAULT);
  H5Aread(attribute, H5T_NATIVE_DOUBLE, &gradient.value);
  H5Aclose(attribute);
  const auto append = [&](std::vector<double>& to, const std::string& path) {
    const std::vector<double> values = read_dataset(file, path.c_str());
    to.insert(to.end(), values.begin(), values.end());
  };
  append(gradient.parameters, "gradient/parameters");
  if (H5Lexists(file, "gradient/parameter_fields", H5P_DEFAULT) > 0)
    append(gradient.parameters, "gradient/parameter_fields/k");
  for (const char* field : {"u", "v"})
    if (H5Lexists(file, (std::string("gradient/initial/") + field).c_str(), H5P_DEFAULT) > 0)
      append(gradient.initial, std::string("gradient/initial/") + field);

  H5Fclose(file);
  return gradient;
}

double relative_difference(const std::vector<double>& a, const std::vector<double>& b) {
  REQUIRE(a.size() == b.size());
  double difference = 0, scale = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    difference = std::max(difference, std::abs(a[i] - b[i]));
    scale = std::max(scale, std::abs(b[i]));
  }
  return difference / scale;
}

}  // namespace compiled_equations_test

TEST_CASE("compiled equations: the interpreter's objective bitwise, its gradient to round-off; omp bitwise cpu") {
  using namespace compiled_equations_test;
  for (const auto& [name, config, step] : {std::tuple{"gray_scott", kGrayScott, 0.5}, {"heat", kHeat, 2e-4},
                                          {"gray_scott_large", kGrayScottLarge, 0.5}}) {
    CAPTURE(std::string(name));
    const Gradient interpreted = run_gradient(std::string(name) + "_interpreted", config, "kernels = \"interpreted\"\n", step);
    const Gradient compiled = run_gradient(std::string(name) + "_compiled", config, "", step);
    CHECK(compiled.value == interpreted.value);
    CHECK(relative_difference(compiled.initial, interpreted.initial) <= 1e-12);
    REQUIRE(!interpreted.parameters.empty());
    CHECK(relative_difference(compiled.parameters, interpreted.parameters) <= 1e-12);
    if (BACKSWEEP_OPENMP_BUILT) {
      ::setenv("OMP_NUM_THREADS", "2", 1);
      const Gradient omp = run_gradient(std::string(name) + "_omp", config, "backend = \"omp\"\n", step);
      ::unsetenv("OMP_NUM_THREADS");
      CHECK(omp.value == compiled.value);
      CHECK(omp.initial == compiled.initial);
      CHECK(omp.parameters == compiled.parameters);
    }
  }
}

TEST_CASE("the first run builds the kernels and says how long it took; the next loads them") {
  using namespace compiled_equations_test;
  const fs::path dir = scratch() / "compile_time";
  fs::create_directories(dir);
  std::ofstream(dir / "cfg.toml") << kHeat << "[solver]\nmethod = \"rk4\"\nstep = 2e-4\nkernel_cache = \"cache\"\n";
  std::vector<double> seconds;
  for (int run = 0; run < 2; ++run) {
    const CliRun cli = run_cli("gradient cfg.toml --output-dir out --json", dir);
    REQUIRE(cli.exit_code == 0);
    const nlohmann::json kernels = nlohmann::json::parse(cli.out.substr(0, cli.out.find('\n')))["diagnostics"]["kernels"];
    CHECK(kernels["how"] == "compiled");
    seconds.push_back(kernels["compile_seconds"].get<double>());
  }
  CHECK(seconds[0] > 0);
  CHECK(seconds[1] == 0);
  fs::remove_all(dir / "cache");  // safe to delete: the next run builds again
  const CliRun again = run_cli("gradient cfg.toml --output-dir out --json", dir);
  CHECK(again.exit_code == 0);
  CHECK(nlohmann::json::parse(again.out.substr(0, again.out.find('\n')))["diagnostics"]["kernels"]["compile_seconds"] > 0);
}

TEST_CASE("no kernel can be built: one line on stderr, the interpreter's result") {
  using namespace compiled_equations_test;
  const Gradient interpreted = run_gradient("fallback_reference", kHeat, "kernels = \"interpreted\"\n", 2e-4);
  ::setenv("BACKSWEEP_CXX", "/nonexistent/c++", 1);
  std::string err;
  const Gradient fallback = run_gradient("fallback", kHeat, "", 2e-4, &err);
  ::unsetenv("BACKSWEEP_CXX");
  CHECK(err.find("the equations run on the interpreter: compiler '/nonexistent/c++' not found") != std::string::npos);
  CHECK(std::count(err.begin(), err.end(), '\n') == 1);
  CHECK(fallback.value == interpreted.value);
  CHECK(fallback.initial == interpreted.initial);
  CHECK(fallback.parameters == interpreted.parameters);
}

TEST_CASE("kernels keys: errors name the key") {
  using namespace compiled_equations_test;
  const fs::path dir = scratch() / "errors";
  fs::create_directories(dir);
  const std::string ode = "[model]\nstates = [\"x\"]\nparameters = [\"a\"]\n[model.equations]\nx = \"-a*x\"\n"
                          "[parameters]\na = 1.0\n[initial]\nx = 1.0\n[time]\nend = 1.0\n";
  const std::vector<std::pair<std::string, std::string>> cases{
      {kHeat + "[solver]\nmethod = \"rk4\"\nstep = 1e-4\nkernels = \"fast\"\n", "unknown kernels 'fast'"},
      {"[model]\nname = \"lorenz63\"\n[time]\nend = 1.0\n[solver]\nkernels = \"compiled\"\n",
       "compiled kernels are built for models defined by equations"},
      {kHeat + "[solver]\nmethod = \"rk4\"\nstep = 1e-4\nbackend = \"omp\"\nkernels = \"interpreted\"\n",
       "omp runs equations on a grid as compiled kernels"},
      {kHeat + "[solver]\nmethod = \"rk4\"\nstep = 1e-4\nkernel_cache = \"\"\n", "must name a folder"}};
  for (const auto& [config, says] : cases) {
    CAPTURE(says);
    std::ofstream(dir / "bad.toml") << config;
    const CliRun run = run_cli("simulate bad.toml --output-dir out", dir);
    CHECK(run.exit_code == 2);
    CHECK(run.err.find("bad.toml:") != std::string::npos);
    CHECK(run.err.find(says) != std::string::npos);
  }
  // Members of an ODE defined by equations still run in parallel on omp.
  std::ofstream(dir / "members.toml") << ode << "[solver]\nmethod = \"rk4\"\nstep = 0.1\nbackend = \"omp\"\n"
                                      << "[objective]\nterminal = \"x\"\n"
                                      << "[ensemble]\nsamples = 4\n[ensemble.ranges]\na = [0.5, 1.5]\n";
  const CliRun members = run_cli("gradient members.toml --output-dir members", dir);
  CAPTURE(members.err);
  CHECK(members.exit_code == (BACKSWEEP_OPENMP_BUILT ? 0 : 2));
}

TEST_CASE("backend cuda: the GPU's kernels, or without a GPU one line and the cpu's compiled result") {
  using namespace compiled_equations_test;
  const fs::path dir = scratch() / "cuda";
  fs::create_directories(dir);
  const std::string solver = "[solver]\nmethod = \"rk4\"\nstep = 2e-4\nbackend = \"cuda\"\n";
  std::ofstream(dir / "cfg.toml") << kHeat << solver;
  std::ofstream(dir / "ode.toml") << "[model]\nstates = [\"x\"]\nparameters = [\"a\"]\n[model.equations]\nx = \"-a*x\"\n"
                                     "[parameters]\na = 1.0\n[initial]\nx = 1.0\n[time]\nend = 1.0\n"
                                  << solver;
  const CliRun ode = run_cli("gradient ode.toml --output-dir out", dir);
  CHECK(ode.exit_code == 2);
  CHECK(ode.err.find("solver.backend") != std::string::npos);
  if (!BACKSWEEP_CUDA_BUILT) {
    const CliRun run = run_cli("gradient cfg.toml --output-dir out", dir);
    CHECK(run.exit_code == 2);
    CHECK(run.err.find("built without CUDA") != std::string::npos);
    return;
  }
  CHECK(ode.err.find("cuda runs equations on a [grid]") != std::string::npos);
  const CliRun simulate = run_cli("simulate cfg.toml --output-dir simulated", dir);
  CHECK(simulate.exit_code == 0);
  CHECK(simulate.err.find("backsweep: simulate runs on the cpu backend (backend cuda runs gradients)\n") == 0);
  const Gradient interpreted = run_gradient("cuda_reference", kHeat, "kernels = \"interpreted\"\n", 2e-4);
  const Gradient compiled = run_gradient("cuda_reference_compiled", kHeat, "", 2e-4);
  std::string err;
  const Gradient cuda = run_gradient("cuda_run", kHeat, "backend = \"cuda\"\n", 2e-4, &err);
  if (err.find("the equations run on the cpu backend, compiled: ") != std::string::npos) {  // no GPU here
    CHECK(std::count(err.begin(), err.end(), '\n') == 1);
    CHECK(cuda.value == compiled.value);
    CHECK(cuda.initial == compiled.initial);
    CHECK(cuda.parameters == compiled.parameters);
  } else {  // on the GPU: CUDA's exp, sin, ... and sums in another order
    CHECK(std::abs(cuda.value - interpreted.value) <= 1e-13 * std::abs(interpreted.value));
    CHECK(relative_difference(cuda.initial, interpreted.initial) <= 1e-10);
    CHECK(relative_difference(cuda.parameters, interpreted.parameters) <= 1e-10);
  }
}

TEST_CASE("an ODE asks for compiled kernels or runs on omp: the interpreter's gradient on the cpu, bitwise") {
  using namespace compiled_equations_test;
  const fs::path dir = scratch() / "ode";
  fs::create_directories(dir);
  const std::string ode = "[model]\nstates = [\"x\", \"y\"]\nparameters = [\"a\", \"b\"]\n"
                          "[model.equations]\nx = \"-a*x*exp(-y)\"\ny = \"a*x - b*sqrt(y + 1)\"\n"
                          "[parameters]\na = 1.2\nb = 0.4\n[initial]\nx = 1.0\ny = 0.5\n[time]\nend = 2.0\n"
                          "[objective]\nterminal = \"x + y^2\"\n[gradient]\nmode = \"adjoint\"\ninitial = true\n"
                          "[solver]\nmethod = \"rk4\"\nstep = 0.01\nkernel_cache = \"cache\"\n";
  std::ofstream(dir / "interpreted.toml") << ode;
  std::ofstream(dir / "compiled.toml") << ode << "kernels = \"compiled\"\n";
  std::ofstream(dir / "omp.toml") << ode << "backend = \"omp\"\n";
  std::ofstream(dir / "omp_compiled.toml") << ode << "backend = \"omp\"\nkernels = \"compiled\"\n";
  std::vector<const char*> names{"interpreted", "compiled"};
  if (BACKSWEEP_OPENMP_BUILT) names.insert(names.end(), {"omp", "omp_compiled"});
  std::vector<nlohmann::json> runs;
  for (const char* name : names) {
    const CliRun run = run_cli(std::string("gradient ") + name + ".toml --output-dir " + name + " --json", dir);
    CAPTURE(run.err);
    REQUIRE(run.exit_code == 0);
    runs.push_back(nlohmann::json::parse(run.out.substr(0, run.out.find('\n'))));
  }
  CHECK(runs[0]["diagnostics"]["kernels"]["how"] == "interpreted");
  CHECK(runs[1]["diagnostics"]["kernels"]["how"] == "compiled");
  for (std::size_t k = 1; k < runs.size(); ++k) {
    CAPTURE(names[k]);
    CHECK(runs[k]["objective"] == runs[0]["objective"]);
    CHECK(runs[k]["gradient"] == runs[0]["gradient"]);
  }
}

// Skipped (and said so) in a build without the OpenMP backend.
TEST_CASE("an ODE of 2^14 states on omp: its algebra's loops on the threads, the cpu's gradient bitwise" *
          doctest::skip(!BACKSWEEP_OPENMP_BUILT)) {
  using namespace compiled_equations_test;
  const fs::path dir = scratch() / "lorenz96";
  fs::create_directories(dir);
  constexpr int n = 1 << 14;  // OpenMpAlgebra's loops run on the threads from here
  const auto x = [](int i) { return "x" + std::to_string((i + n) % n); };
  std::string states, equations, initial;
  for (int i = 0; i < n; ++i) {
    states += (i ? ", \"" : "\"") + x(i) + "\"";
    equations += x(i) + " = \"(" + x(i + 1) + " - " + x(i - 2) + ")*" + x(i - 1) + " - " + x(i) + " + F\"\n";
    initial += x(i) + " = " + std::to_string(8.0 + 0.001 * (i % 7) + (i == 0 ? 0.01 : 0.0)) + "\n";
  }
  const std::string config = "[model]\nstates = [" + states + "]\nparameters = [\"F\"]\n[model.equations]\n" + equations +
                             "[parameters]\nF = 8.0\n[initial]\n" + initial +
                             "[time]\nend = 0.05\n[objective]\nterminal = \"x0 + x7^2\"\n"
                             "[gradient]\nmode = \"adjoint\"\ninitial = true\n[solver]\nmethod = \"rk4\"\nstep = 0.01\n";
  std::ofstream(dir / "cpu.toml") << config;
  std::ofstream(dir / "omp.toml") << config << "backend = \"omp\"\n";
  std::vector<nlohmann::json> runs;
  for (const char* name : {"cpu", "omp"}) {
    const CliRun run = run_cli(std::string("gradient ") + name + ".toml --output-dir " + name + " --json", dir);
    REQUIRE(run.exit_code == 0);
    runs.push_back(nlohmann::json::parse(run.out.substr(0, run.out.find('\n'))));
  }
  CHECK(runs[1]["objective"] == runs[0]["objective"]);
  CHECK(runs[1]["gradient"] == runs[0]["gradient"]);
}
