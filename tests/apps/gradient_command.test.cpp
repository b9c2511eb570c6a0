// Runs the real `backsweep gradient` and `backsweep plan` programs.
#include <doctest/doctest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "adjoint/checkpoint_schedule.hpp"
#include "tests/apps/run_cli.hpp"

namespace fs = std::filesystem;

namespace {

fs::path scratch() {
  const fs::path dir = fs::temp_directory_path() / ("backsweep_gradient_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir;
}

CliRun run(const std::string& arguments) { return run_cli(arguments, scratch()); }

std::string example() {
  std::ifstream in(std::string(BACKSWEEP_SOURCE_DIR) + "/examples/lorenz63_gradient.toml");
  return {std::istreambuf_iterator<char>(in), {}};
}

fs::path write_config(const std::string& name, const std::string& text) {
  const fs::path path = scratch() / name;
  std::ofstream(path) << text;
  return path;
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

}  // namespace

TEST_CASE("gradient: adjoint and tangent modes agree to round-off") {
  const std::string adjoint_config = example();
  const CliRun adjoint = run("gradient " + write_config("a.toml", adjoint_config).string() + " --json");
  const CliRun tangent = run("gradient " +
                          write_config("t.toml", replaced(adjoint_config, "mode       = \"adjoint\"",
                                                          "mode = \"tangent\""))
                              .string() +
                          " --json");
  CAPTURE(adjoint.err);
  REQUIRE(adjoint.exit_code == 0);
  REQUIRE(tangent.exit_code == 0);
  const auto a = nlohmann::json::parse(adjoint.out), t = nlohmann::json::parse(tangent.out);
  CHECK(a["diagnostics"]["schedule"] == "revolve");
  CHECK(a["diagnostics"]["peak_slots"] == 100);
  CHECK(a["diagnostics"]["recomputed_steps"] == backsweep::revolve_min_recomputations(2000, 100));
  CHECK(a["objective"].get<double>() == doctest::Approx(t["objective"].get<double>()).epsilon(1e-14));
  CHECK(a["gradient"]["parameters"].size() == 3);
  CHECK(a["gradient"]["initial"].size() == 3);
  for (const char* group : {"parameters", "initial"})
    for (auto& [name, value] : a["gradient"][group].items()) {
      CAPTURE(name);
      CHECK(value.get<double>() ==
            doctest::Approx(t["gradient"][group][name].get<double>()).epsilon(1e-11));
    }
}

TEST_CASE("gradient: bad objective input names file, line, column and key") {
  const std::string base = example();
  struct Case {
    std::string text, words;
  };
  const Case cases[] = {
      {replaced(base, "terminal = \"z\"", "terminal = \"z + w\""),
       ":25:17: key 'objective.terminal': unknown name 'w' (known: t, x, y, z, sigma, rho, beta"},
      {replaced(base, "integral = \"x^2 + y^2\"", "integral = \"x^2 +\""),
       ":26:18: key 'objective.integral': an operand is missing"},
      {replaced(base, "time    = 1.0", "time    = 9.0"), "key 'objective.observation.time': lies outside"},
      {replaced(base, "schedule = \"revolve\"", "schedule = \"binomial\""),
       "key 'checkpointing.schedule': must be auto, store_all or revolve"},
      {replaced(base, "slots    = 100", "slots    = 0"), "key 'checkpointing.slots'"},
      {replaced(base, "parameters = [\"sigma\", \"rho\", \"beta\"]", "parameters = [\"gamma\"]"),
       "key 'gradient.parameters': unknown parameter"},
      {replaced(base, "mode       = \"adjoint\"", "mode = \"reverse\""), "key 'gradient.mode'"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.words);
    const CliRun result = run("gradient " + write_config("bad.toml", c.text).string());
    CHECK(result.exit_code == 2);
    CHECK(result.err.find(c.words) != std::string::npos);
    CHECK(result.err.find("bad.toml:") != std::string::npos);
    CHECK(result.out.empty());
  }
}

TEST_CASE("plan prints the measured revolve counts") {
  for (auto [steps, slots] : {std::pair{10, 3}, {2000, 100}, {100000, 10}, {5, 10}}) {
    const CliRun result =
        run("plan --steps " + std::to_string(steps) + " --slots " + std::to_string(slots) + " --json");
    REQUIRE(result.exit_code == 0);
    const auto j = nlohmann::json::parse(result.out);
    CHECK(j["recomputed_steps"] == backsweep::revolve_min_recomputations(steps, slots));
    CHECK(j["peak_slots"].get<std::size_t>() <= std::size_t(slots));
    CHECK(j["ratio"].get<double>() ==
          doctest::Approx(double(backsweep::revolve_min_recomputations(steps, slots)) / steps));
  }
  CHECK(run("plan --steps 10").exit_code == 2);
  CHECK(run("plan --steps 0 --slots 3").exit_code == 2);
}
