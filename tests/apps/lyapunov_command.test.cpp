// Runs the real `backsweep lyapunov` program: the Lorenz-63 spectrum, its output files,
// and bad input.
#include <doctest/doctest.h>
#include <hdf5.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/apps/run_cli.hpp"

namespace fs = std::filesystem;

namespace {

fs::path scratch() { return scratch_folder("lyapunov"); }

CliRun run_config(const std::string& name, const std::string& text, const std::string& flags = "") {
  std::ofstream(scratch() / name) << text;
  return run_cli("lyapunov " + (scratch() / name).string() + flags, scratch());
}

const std::string kLorenz = R"([model]
name = "lorenz63"
[time]
end = 2.0  # for simulate; lyapunov runs transient + duration
[solver]
method = "rk4"
step = 0.01
[lyapunov]
exponents = 3
transient = 50.0
duration = 500.0
)";

}  // namespace

TEST_CASE("lyapunov: the Lorenz-63 spectrum, on stdout and in the files") {
  const CliRun result = run_config("lorenz.toml", kLorenz, " --json");
  CAPTURE(result.err);
  REQUIRE(result.exit_code == 0);
  const auto json = nlohmann::json::parse(result.out);
  const auto exponents = json["exponents"].get<std::vector<double>>();
  REQUIRE(exponents.size() == 3);
  CHECK(exponents[0] == doctest::Approx(0.9056).epsilon(0.03));
  CHECK(exponents[2] == doctest::Approx(-14.572).epsilon(0.01));
  CHECK(json["standard_errors"].size() == 3);
  CHECK(json["kaplan_yorke_dimension"].get<double>() == doctest::Approx(2.06).epsilon(0.02));
  CHECK(json["steps"] == 55000);
  CHECK(result.err.find("lambda_1 = ") != std::string::npos);

  const hid_t file = H5Fopen((scratch() / "out/lorenz/lyapunov.h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  REQUIRE(file >= 0);
  double stored[3] = {0, 0, 0};
  const hid_t set = H5Dopen2(file, "exponents", H5P_DEFAULT);
  REQUIRE(set >= 0);
  H5Dread(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, stored);
  CHECK(stored[0] == exponents[0]);
  CHECK(stored[2] == exponents[2]);
  H5Dclose(set);
  CHECK(H5Lexists(file, "history/exponents", H5P_DEFAULT) > 0);
  H5Fclose(file);

  std::ifstream csv(scratch() / "out/lorenz/lyapunov_history.csv");
  std::string header, last, line;
  std::getline(csv, header);
  CHECK(header == "time,lambda_1,lambda_2,lambda_3");
  while (std::getline(csv, line)) last = line;
  CHECK(last.rfind("500,", 0) == 0);
}

TEST_CASE("lyapunov: with CVODES, the same spectrum") {
  std::string text = kLorenz;
  const std::string fixed_step = "method = \"rk4\"\nstep = 0.01";
  text.replace(text.find(fixed_step), fixed_step.size(), "method = \"cvodes_bdf\"\nrtol = 1e-8\natol = 1e-10");
  text += "interval = 0.1\n";
  const CliRun result = run_config("lorenz_cvodes.toml", text, " --json");
  CAPTURE(result.err);
  REQUIRE(result.exit_code == 0);
  const auto json = nlohmann::json::parse(result.out);
  const auto exponents = json["exponents"].get<std::vector<double>>();
  REQUIRE(exponents.size() == 3);
  CHECK(exponents[0] == doctest::Approx(0.9056).epsilon(0.03));
  CHECK(exponents[2] == doctest::Approx(-14.572).epsilon(0.01));
  CHECK(json["steps"].get<int>() > 0);
  CHECK(result.err.find("CVODES steps, QR every 0.1") != std::string::npos);
}

TEST_CASE("lyapunov: bad input names file, line and key, and writes nothing") {
  auto replaced = [](std::string text, const std::string& from, const std::string& to) {
    const auto at = text.find(from);
    REQUIRE(at != std::string::npos);
    return text.replace(at, from.size(), to);
  };
  struct Case {
    std::string text, words;
  };
  const Case cases[] = {
      {replaced(kLorenz, "step = 0.01\n", ""), "key 'solver.step': method 'rk4' has no error estimate"},
      {replaced(replaced(kLorenz, "step = 0.01\n", ""), "rk4", "dopri5"),
       ":5:1: key 'solver.step': lyapunov needs a fixed step size"},
      {replaced(kLorenz, "duration = 500.0\n", ""), "key 'lyapunov.duration'"},
      {replaced(kLorenz, "exponents = 3", "exponents = 4"), ":9:13: key 'lyapunov.exponents': must be between 1 and the number of states (3)"},
      {replaced(kLorenz, "transient = 50.0", "transient = -1.0"), ":10:13: key 'lyapunov.transient': must be >= 0"},
      {replaced(kLorenz, "duration = 500.0", "duration = nan"), "key 'lyapunov.duration'"},
      {replaced(kLorenz, "exponents = 3", "exponent = 3"), "key 'lyapunov.exponent'"},
      {kLorenz + "blocks = 1\n", "key 'lyapunov.blocks': must be at least 2"},
      {replaced(kLorenz, "[lyapunov]", "[lyapunov_]"), "key 'lyapunov_'"},
      {kLorenz + "interval = 0.1\n", "key 'lyapunov.interval': is for CVODES methods"},
      {replaced(replaced(kLorenz, "step = 0.01\n", ""), "rk4", "cvodes_bdf") + "reorthonormalize_every = 5\n",
       "key 'lyapunov.reorthonormalize_every': counts steps of a backsweep method"},
  };
  fs::remove_all(scratch() / "out");
  int index = 0;
  for (const Case& c : cases) {
    const std::string name = "bad" + std::to_string(index++) + ".toml";
    const CliRun result = run_config(name, c.text);
    CAPTURE(c.text);
    CAPTURE(result.err);
    CHECK(result.exit_code == 2);
    CHECK(result.err.find(name) != std::string::npos);
    CHECK(result.err.find(c.words) != std::string::npos);
  }
  CHECK(!fs::exists(scratch() / "out"));
}
