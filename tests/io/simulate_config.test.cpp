#include "io/simulate_config.hpp"

#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "io/config_error.hpp"

using namespace backsweep;

namespace {

std::string write_config(const std::string& text) {
  static int counter = 0;
  const auto path = std::filesystem::temp_directory_path() /
                    ("backsweep_config_test_" + std::to_string(::getpid()) + "_" +
                     std::to_string(counter++) + ".toml");
  std::ofstream(path, std::ios::binary) << text;
  return path.string();
}

// The ConfigError a config produces (fails the test if it loads).
ConfigError error_of(const std::string& text) {
  const std::string path = write_config(text);
  try {
    load_simulate_config(path);
  } catch (const ConfigError& error) {
    std::filesystem::remove(path);
    return error;
  }
  std::filesystem::remove(path);
  FAIL("the config loaded without error:\n" << text);
  throw;
}

const char* const kGood = R"([model]
name = "lotka_volterra"
[parameters]
alpha = 1.25
[initial]
y = 0.5
[time]
end = 4
output = [1, 2.5, 4]
[solver]
method = "tsit5"
rtol = 1e-9
atol = 1e-12
max_steps = 1_000
[output]
dir = "results"
)";

}  // namespace

TEST_CASE("the example config loads") {
  const auto config =
      load_simulate_config(std::string(BACKSWEEP_SOURCE_DIR) + "/examples/lorenz63.toml");
  CHECK(config.model == "lorenz63");
  CHECK(config.method == "dopri5");
  CHECK(config.integrate.rtol == 1e-8);
  CHECK(config.integrate.output_times.size() == 20);
  CHECK(config.integrate.output_times.back() == 2.0);
}

TEST_CASE("values override the model's defaults by name") {
  const std::string path = write_config(kGood);
  const auto config = load_simulate_config(path);
  std::filesystem::remove(path);
  CHECK(config.parameters == std::vector<double>{1.25, 1.0, 3.0, 1.0});
  CHECK(config.initial_state == std::vector<double>{1.0, 0.5});
  CHECK(config.integrate.t1 == 4.0);
  CHECK(config.integrate.output_times == std::vector<double>{1.0, 2.5, 4.0});
  CHECK(config.integrate.max_steps == 1000);
  CHECK(config.integrate.step == 0.0);
  CHECK(config.output_dir == "results");
}

TEST_CASE("errors name the file, the line and the key") {
  struct Case {
    std::string text, key, words;
    std::size_t line;
  };
  const std::string model = "[model]\nname = \"van_der_pol\"\n";
  const std::string time = "[time]\nend = 1\n";
  const Case cases[] = {
      {"[model]\nname = \"lorenz96\"\n" + time, "model.name", "built-in models: lorenz63", 2},
      {"[modle]\nname = \"lorenz63\"\n", "modle", "unknown key", 1},
      {model + time + "[solver]\nmethod = \"rk4\"\n", "solver.step", "needs a fixed step", 5},
      {model + time + "[solver]\nmethod = \"rk5\"\n", "solver.method", "known: euler", 6},
      {model + time + "[solver]\nrtol = -1e-6\n", "solver.rtol", "must be > 0", 6},
      {model + time + "[solver]\nrtol = nan\n", "solver.rtol", "finite", 6},
      {model + time + "[solver]\nrtol = \"tight\"\n", "solver.rtol", "must be a number", 6},
      {model + time + "[solver]\nstep = 0\n", "solver.step", "must be > 0", 6},
      {model + time + "[solver]\nmax_steps = 2.5\n", "solver.max_steps", "integer", 6},
      {model + time + "[solver]\ntolerance = 1\n", "solver.tolerance", "unknown key", 6},
      {model + "[time]\nstart = 2\nend = 1\n", "time.end", "greater than time.start", 5},
      {model + "[time]\nstart = 0\n", "time.end", "is required", 3},
      {model + "[time]\nend = 1\noutput = [0.5, 0.2]\n", "time.output", "increasing", 5},
      {model + "[time]\nend = 1\noutput = [0.5, 2]\n", "time.output", "outside", 5},
      {model + "[time]\nend = 1\noutput = [0.5, \"x\"]\n", "time.output", "entry 2", 5},
      {model + "[time]\nend = 1\noutput_step = -1\n", "time.output_step", "> 0", 5},
      {model + "[time]\nend = 1\noutput_step = 1e-12\n", "time.output_step", "10^7", 5},
      {model + "[time]\nend = 1\noutput = []\n", "time.output", "at least one", 5},
      {model + time + "[solver]\nmin_step = 1\nmax_step = 0.1\n", "solver.min_step", "exceed", 6},
      {model + time + "[parameters]\nmu = 1\nnu = 2\n", "parameters.nu", "this model has: mu", 7},
      {model + time + "[initial]\nz = 1\n", "initial.z", "unknown state", 6},
      {model + time + "[output]\ndir = \"\"\n", "output.dir", "must not be empty", 6},
      {time, "model", "[model] section is required", 1},
      {"time = 3\n" + model, "time", "must be a table", 1},
      {"[model\nname = 1\n", "", "TOML syntax error", 1},
      {std::string("\x7f\x45\x4c\x46\x02\x01\x01\x00\xff\xfe", 10), "", "TOML syntax error", 1},
  };
  for (const Case& c : cases) {
    CAPTURE(c.text);
    const ConfigError error = error_of(c.text);
    const std::string message = error.what();
    CAPTURE(message);
    CHECK(error.key() == c.key);
    CHECK(error.where().line == c.line);
    CHECK(message.find(".toml:" + std::to_string(c.line) + ":") != std::string::npos);
    CHECK(message.find(c.words) != std::string::npos);
  }
}

TEST_CASE("output_step lands on the end without a near-duplicate") {
  const std::string path =
      write_config("[model]\nname = \"van_der_pol\"\n[time]\nend = 0.9\noutput_step = 0.3\n");
  const auto config = load_simulate_config(path);
  std::filesystem::remove(path);
  REQUIRE(config.integrate.output_times.size() == 3);
  CHECK(config.integrate.output_times.back() == 0.9);
}

TEST_CASE("a missing file is a config error") {
  CHECK_THROWS_AS(load_simulate_config("/nonexistent/backsweep.toml"), ConfigError);
}
