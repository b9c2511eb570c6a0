// gradient.mode = "shadowing" through the real program: Lorenz-63's d<z>/drho with the
// unstable directions from the Lyapunov spectrum or from the config, a limit cycle (no
// unstable direction: said, not failed), gradient.h5, and what it refuses, by key.
#include <filesystem>
#include <fstream>
#include <string>

#include <doctest/doctest.h>
#include <hdf5.h>
#include <nlohmann/json.hpp>

#include "tests/apps/run_cli.hpp"
#include "tests/h5_read.hpp"

namespace {

const std::filesystem::path& scratch() {
  static const std::filesystem::path dir = scratch_folder("shadowing_command");
  return dir;
}

CliRun gradient(const std::string& name, const std::string& text) {
  std::ofstream(scratch() / name) << text;
  return run_cli("gradient --json " + (scratch() / name).string(), scratch());
}

std::string lorenz(const std::string& extra = "", const std::string& objective = "integral = \"z\"",
                   const std::string& solver = "method = \"rk4\"\nstep = 0.005") {
  return "[model]\nname = \"lorenz63\"\n[initial]\nx = 1.0\ny = 1.0\nz = 1.0\n[time]\nend = 220.0\n[solver]\n" +
         solver + "\n[objective]\n" + objective + "\n[gradient]\nparameters = [\"rho\"]\nmode = \"shadowing\"\n" +
         extra + "[output]\ndir = \"out/lorenz\"\n";
}

}  // namespace

TEST_CASE("Lorenz-63: d<z>/drho by shadowing, its unstable direction counted from the spectrum or given") {
  const CliRun counted = gradient("counted.toml", lorenz());
  CAPTURE(counted.err);
  REQUIRE(counted.exit_code == 0);
  const nlohmann::json j = nlohmann::json::parse(counted.out);
  const double slope = j["gradient"]["parameters"]["rho"].get<double>();
  CHECK(std::abs(slope - 1.0) < 0.05);  // 1.017 (bench/shadowing_lorenz: 1.002 by finite differences)
  CHECK(j["error"]["parameters"]["rho"].get<double>() < 0.01);
  CHECK(j["diagnostics"]["unstable"] == 1);
  CHECK(j["diagnostics"]["unstable_from"] == "lyapunov");
  CHECK(j["diagnostics"]["exponents"].size() == 3);
  CHECK(std::abs(j["objective"].get<double>() - 23.5) < 0.5);  // <z> at rho = 28
  CHECK(counted.err.find("1 unstable direction(s) from the Lyapunov spectrum") != std::string::npos);

  const hid_t file = H5Fopen((scratch() / "out/lorenz/gradient.h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  REQUIRE(file >= 0);
  CHECK(read_text_attribute(file, "mode") == "shadowing");
  const hid_t group = H5Gopen2(file, "gradient", H5P_DEFAULT);
  CHECK(read_dataset(group, "parameters") == std::vector<double>{slope});
  H5Gclose(group);
  H5Fclose(file);

  // One direction given: the same run, bitwise.
  const CliRun given = gradient("given.toml", lorenz("[shadowing]\nunstable = 1\n"));
  REQUIRE(given.exit_code == 0);
  const nlohmann::json g = nlohmann::json::parse(given.out);
  CHECK(g["gradient"]["parameters"]["rho"].get<double>() == slope);
  CHECK(g["diagnostics"]["unstable_from"] == "config");
}

TEST_CASE("a limit cycle has no unstable direction: shadowing says so and gives the derivative") {
  const CliRun run = gradient(
      "van_der_pol.toml",
      "[model]\nname = \"van_der_pol\"\n[initial]\nx = 2.0\ny = 0.0\n[time]\nend = 500.0\n[solver]\nmethod = "
      "\"rk4\"\nstep = 0.01\n[objective]\nintegral = \"x^2\"\n[gradient]\nmode = \"shadowing\"\n[shadowing]\n"
      "segment_length = 5.0\n[output]\ndir = \"out/vdp\"\n");
  CAPTURE(run.err);
  REQUIRE(run.exit_code == 0);
  CHECK(run.err.find("no positive Lyapunov exponent") != std::string::npos);
  const nlohmann::json j = nlohmann::json::parse(run.out);
  CHECK(j["diagnostics"]["unstable"] == 0);
  // 0.111391 by a finite difference of the limit cycle's averages (tests/adjoint/shadowing).
  CHECK(std::abs(j["gradient"]["parameters"]["mu"].get<double>() / 0.111391 - 1.0) < 0.01);
}

TEST_CASE("shadowing refuses, by key, what it cannot take") {
  struct Case {
    std::string config, key, words;
  };
  const Case cases[] = {
      {lorenz("", "terminal = \"z\""), "objective.terminal", "long-time average"},
      {lorenz("", "integral = \"z\"\n[[objective.observation]]\ntime = 1.0\nformula = \"x\""), "objective.observation",
       "long-time average"},
      {lorenz("", "integral = \"z\"", "method = \"dopri5\""), "solver.step", "fixed steps"},
      {lorenz("", "integral = \"z\"", "method = \"cvodes_bdf\""), "solver.method", "own methods"},
      {lorenz("[shadowing]\nsegments = 10\n"), "shadowing.segments", "too few for an error estimate"},
      {lorenz("[shadowing]\nunstable = 3\n"), "shadowing.unstable", "fewer than the states"},
      {lorenz("[shadowing]\nsegment_length = 0.0037\n"), "shadowing.segment_length", "multiple of solver.step"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.key);
    const CliRun run = gradient("bad.toml", c.config);
    CAPTURE(run.err);
    CHECK(run.exit_code == 2);
    CHECK(run.err.find("key '" + c.key + "'") != std::string::npos);
    CHECK(run.err.find(c.words) != std::string::npos);
  }
  // [shadowing] without the mode, and the initial state's gradient asked for.
  std::string plain = lorenz("[shadowing]\nsegments = 100\n");
  plain.replace(plain.find("mode = \"shadowing\""), 18, "mode = \"adjoint\"");
  const CliRun stray = gradient("stray.toml", plain);
  CHECK(stray.exit_code == 2);
  CHECK(stray.err.find("key 'shadowing'") != std::string::npos);
  std::string initial = lorenz();
  initial.replace(initial.find("mode = \"shadowing\""), 18, "mode = \"shadowing\"\ninitial = true");
  const CliRun asked = gradient("initial.toml", initial);
  CHECK(asked.exit_code == 2);
  CHECK(asked.err.find("key 'gradient.initial'") != std::string::npos);
}
