// gradient.mode = "shadowing" through the real program: Lorenz-63's d<z>/drho with the
// unstable directions from the Lyapunov spectrum or from the config, a limit cycle (no
// unstable direction: said, not failed), gradient.h5, and what it refuses, by key.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
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
  // A bounded shadowing direction: no warning.
  const nlohmann::json direction = j["diagnostics"]["direction"]["rho"];
  CHECK(direction["largest"].get<double>() < 3.0 * direction["median"].get<double>());
  CHECK(counted.err.find("far from hyperbolic") == std::string::npos);

  const hid_t file = H5Fopen((scratch() / "out/lorenz/gradient.h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  REQUIRE(file >= 0);
  CHECK(read_text_attribute(file, "mode") == "shadowing");
  const hid_t group = H5Gopen2(file, "gradient", H5P_DEFAULT);
  CHECK(read_dataset(group, "parameters") == std::vector<double>{slope});
  H5Gclose(group);
  const hid_t sizes = H5Gopen2(file, "diagnostics/direction", H5P_DEFAULT);
  CHECK(read_dataset(sizes, "largest") == std::vector<double>{direction["largest"].get<double>()});
  H5Gclose(sizes);
  H5Fclose(file);

  // One direction given: the same run, bitwise.
  const CliRun given = gradient("given.toml", lorenz("[shadowing]\nunstable = 1\n"));
  REQUIRE(given.exit_code == 0);
  const nlohmann::json g = nlohmann::json::parse(given.out);
  CHECK(g["gradient"]["parameters"]["rho"].get<double>() == slope);
  CHECK(g["diagnostics"]["unstable_from"] == "config");
  CHECK(g["diagnostics"]["sweep"] == "tangent");  // auto: one parameter

  // The adjoint sweep: the same derivative to round-off.
  const CliRun adjoint = gradient("adjoint.toml", lorenz("[shadowing]\nunstable = 1\nsweep = \"adjoint\"\n"));
  CAPTURE(adjoint.err);
  REQUIRE(adjoint.exit_code == 0);
  const nlohmann::json a = nlohmann::json::parse(adjoint.out);
  CHECK(a["diagnostics"]["sweep"] == "adjoint");
  CHECK(std::abs(a["gradient"]["parameters"]["rho"].get<double>() / slope - 1.0) < 1e-10);
  CHECK(a["diagnostics"]["direction"].empty());
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
      {lorenz("[shadowing]\nsweep = \"backward\"\n"), "shadowing.sweep", "tangent, adjoint or auto"},
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

TEST_CASE("Kuramoto-Sivashinsky on a grid (bilap): the example's shadowing derivative, shortened") {
  std::ifstream example(BACKSWEEP_SOURCE_DIR "/examples/kuramoto_sivashinsky.toml");
  std::string text((std::istreambuf_iterator<char>(example)), std::istreambuf_iterator<char>());
  const auto replace = [&](const std::string& from, const std::string& to) {
    const std::size_t at = text.find(from);
    REQUIRE(at != std::string::npos);
    text.replace(at, from.size(), to);
  };
  replace("end = 2100.0", "end = 260.0");
  replace("dir = \"kuramoto_sivashinsky_out\"", "dir = \"out/ks\"");
  const CliRun run = gradient("ks.toml", text);
  CAPTURE(run.err);
  REQUIRE(run.exit_code == 0);
  CHECK(run.err.find("bilap() has no native kernel") != std::string::npos);  // said, then interpreted
  const nlohmann::json j = nlohmann::json::parse(run.out);
  CHECK(j["diagnostics"]["unstable"] == 4);
  CHECK(j["diagnostics"]["segments"] == 32);
  const double slope = j["gradient"]["parameters"]["c"].get<double>(), error = j["error"]["parameters"]["c"].get<double>();
  CHECK(std::isfinite(slope));
  CHECK(error > 0.0);
  // bench/shadowing_kuramoto_sivashinsky measures it: near-zero exponents make the error
  // estimate large, and a derivative it cannot tell from 0 is said.
  const nlohmann::json direction = j["diagnostics"]["direction"]["c"];
  CHECK(direction["median"].get<double>() > 0.0);
  const bool outlier = direction["largest"].get<double>() > 100.0 * direction["median"].get<double>();
  CHECK((run.err.find("far from hyperbolic") != std::string::npos) == outlier);
  CHECK((run.err.find("cannot be told from 0") != std::string::npos) == (!outlier && error >= std::abs(slope)));
}
