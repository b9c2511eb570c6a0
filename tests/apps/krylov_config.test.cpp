// Krylov stage solvers chosen from a config (solver.linear_solver, preconditioner,
// krylov_tolerance): a 3-D heat gradient with a conductivity field by GMRES with
// multigrid gives KLU's gradient to the Krylov tolerance and says in --json what solved
// it and how well; auto takes GMRES with multigrid there and says why; cvodes_bdf runs
// SPGMR with our preconditioner to its tolerances; bad keys are config errors naming them.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include <hdf5.h>
#include <nlohmann/json.hpp>

#include "tests/apps/run_cli.hpp"
#include "tests/h5_read.hpp"

namespace fs = std::filesystem;

namespace krylov_config_test {

fs::path scratch() { return scratch_folder("krylov_config"); }

const std::string kHeat3d =
    "[grid]\nshape = [10, 12, 14]\nextent = [1.0, 1.0, 1.0]\nboundary = [\"dirichlet\", \"neumann\", \"dirichlet\"]\n"
    "[model]\nfields = [\"u\"]\nparameter_fields = [\"k\"]\n[model.equations]\nu = \"div_grad(k, u)\"\n"
    "[parameters]\nk = \"1 + 0.5*sin(2*pi*x)*sin(pi*y)\"\n"
    "[initial]\nu = \"sin(pi*x)*sin(pi*z)*(1 + 0.5*cos(4*pi*x)*cos(pi*y))\"\n"
    "[time]\nend = 0.02\n[objective]\nterminal = \"u[5, 6, 7] + u[3, 2, 9]^2\"\n";

struct Gradient {
  nlohmann::json json;
  std::vector<double> dk;
};

Gradient run_gradient(const fs::path& dir, const std::string& name, const std::string& solver) {
  std::ofstream(dir / (name + ".toml")) << kHeat3d << "[solver]\n" << solver;
  const CliRun run = run_cli("gradient " + name + ".toml --json --output-dir " + name, dir);
  CAPTURE(run.err);
  REQUIRE(run.exit_code == 0);
  Gradient g{nlohmann::json::parse(run.out), {}};
  const hid_t file = H5Fopen((dir / name / "gradient.h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  REQUIRE(file >= 0);
  g.dk = read_dataset(file, "/gradient/parameter_fields/k");
  H5Fclose(file);
  return g;
}

double relative_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double largest = 0, scale = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    largest = std::max(largest, std::abs(a[i] - b[i]));
    scale = std::max(scale, std::abs(b[i]));
  }
  return largest / scale;
}

}  // namespace krylov_config_test

TEST_CASE("3-D heat by GMRES with multigrid from a config: KLU's gradient, and --json says how it was solved") {
  using namespace krylov_config_test;
  const fs::path dir = scratch() / "heat";
  fs::create_directories(dir);
  const std::string step = "method = \"sdirk2\"\nstep = 0.005\n";
  const Gradient klu = run_gradient(dir, "klu", step + "linear_solver = \"klu\"\n");
  const Gradient krylov =
      run_gradient(dir, "gmres", step + "linear_solver = \"gmres\"\npreconditioner = \"multigrid\"\nkrylov_tolerance = 1e-12\n");
  const Gradient automatic = run_gradient(dir, "auto", step);
  CHECK(relative_difference(krylov.dk, klu.dk) <= 1e-8);
  const nlohmann::json& linear = krylov.json["diagnostics"]["linear_solver"];
  CHECK(linear["solver"] == "gmres + multigrid");
  CHECK(linear["reason"] == "asked for");
  CHECK(linear["tolerance"].get<double>() == 1e-12);
  CHECK(linear["adjoint"]["solves"].get<int>() >= 8);  // 4 steps, 2 stages
  CHECK(linear["adjoint"]["worst_residual"].get<double>() <= 1e-12);
  // Newton's later solves are inexact: with J constant they measure what the first left, to 1/4.
  CHECK(linear["forward"]["worst_residual"].get<double>() <= 0.25);
  CHECK(klu.json["diagnostics"]["linear_solver"]["solver"] == "klu");
  const nlohmann::json& chosen = automatic.json["diagnostics"]["linear_solver"];
  CHECK(chosen["solver"] == "gmres + multigrid");
  CHECK(chosen["reason"].get<std::string>().find("3-D grid of 1680 points") != std::string::npos);
  CHECK(relative_difference(automatic.dk, klu.dk) <= 1e-6);  // at the default tolerance, 1e-10
}

TEST_CASE("cvodes_bdf with SPGMR and our multigrid: the gradient KLU's CVODES gives, to the tolerances") {
  using namespace krylov_config_test;
  const fs::path dir = scratch() / "cvodes";
  fs::create_directories(dir);
  const std::string tolerances = "method = \"cvodes_bdf\"\nrtol = 1e-8\natol = 1e-10\n";
  const Gradient klu = run_gradient(dir, "klu", tolerances + "linear_solver = \"klu\"\n");
  const Gradient spgmr = run_gradient(dir, "spgmr", tolerances + "linear_solver = \"gmres\"\n");
  CHECK(spgmr.json["diagnostics"]["linear_solver"]["solver"] == "gmres + multigrid");
  CHECK(spgmr.json["diagnostics"]["linear_solver"]["adjoint"]["iterations"].get<int>() > 0);
  CHECK(relative_difference(spgmr.dk, klu.dk) <= 1e-5);
}

TEST_CASE("Krylov keys: errors name the key") {
  using namespace krylov_config_test;
  const fs::path dir = scratch() / "errors";
  fs::create_directories(dir);
  const std::string ode = "[model]\nstates = [\"x\"]\nparameters = [\"a\"]\n[model.equations]\nx = \"-a*x\"\n"
                          "[parameters]\na = 1.0\n[initial]\nx = 1.0\n[time]\nend = 1.0\n";
  const std::vector<std::pair<std::string, std::string>> cases{
      {kHeat3d + "[solver]\nmethod = \"sdirk2\"\nstep = 0.01\nlinear_solver = \"bicgstab\"\n",
       "key 'solver.linear_solver': unknown linear solver 'bicgstab' (known: auto, dense, klu, gmres, cg)"},
      {kHeat3d + "[solver]\nmethod = \"sdirk2\"\nstep = 0.01\npreconditioner = \"amg\"\n",
       "key 'solver.preconditioner': unknown preconditioner 'amg'"},
      {ode + "[solver]\nmethod = \"sdirk2\"\nstep = 0.1\nlinear_solver = \"gmres\"\npreconditioner = \"multigrid\"\n",
       "key 'solver.preconditioner': multigrid coarsens a [grid]"},
      {kHeat3d + "[solver]\nmethod = \"sdirk2\"\nstep = 0.01\nlinear_solver = \"klu\"\npreconditioner = \"ilu\"\n",
       "key 'solver.preconditioner': is for gmres or cg"},
      {kHeat3d + "[solver]\nmethod = \"rk4\"\nstep = 1e-5\npreconditioner = \"ilu\"\n",
       "key 'solver.preconditioner': is for implicit methods"},
      {kHeat3d + "[solver]\nmethod = \"sdirk2\"\nstep = 0.01\nkrylov_tolerance = 2.0\n",
       "key 'solver.krylov_tolerance': must be > 0 and < 1"}};
  for (const auto& [config, says] : cases) {
    CAPTURE(says);
    std::ofstream(dir / "bad.toml") << config;
    const CliRun run = run_cli("gradient bad.toml --output-dir out", dir);
    CAPTURE(run.err);
    CHECK(run.exit_code == 2);
    CHECK(run.err.find("bad.toml:") != std::string::npos);
    CHECK(run.err.find(says) != std::string::npos);
  }
}
