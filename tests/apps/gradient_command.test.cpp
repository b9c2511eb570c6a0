// Runs the real `backsweep gradient` and `backsweep plan` programs.
#include <doctest/doctest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <string>

#include <hdf5.h>
#include <nlohmann/json.hpp>

#include "adjoint/checkpoint_schedule.hpp"
#include "tests/apps/run_cli.hpp"
#include "tests/h5_read.hpp"

namespace fs = std::filesystem;

namespace {

fs::path scratch() { return scratch_folder("gradient"); }

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
  CHECK(a["diagnostics"]["forward_steps"] == backsweep::revolve_min_recomputations(2000, 100));
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

TEST_CASE("results go to stdout (> file keeps them); with --json stdout holds only the JSON") {
  const fs::path config = write_config("streams.toml", example());
  const CliRun plain = run("gradient " + config.string());
  REQUIRE(plain.exit_code == 0);
  CHECK(plain.out.find("J = ") != std::string::npos);
  CHECK(plain.out.find("dJ/drho = ") != std::string::npos);
  CHECK(plain.err.find("dJ/drho = ") == std::string::npos);
  const CliRun json = run("gradient " + config.string() + " --json");
  REQUIRE(json.exit_code == 0);
  CHECK_NOTHROW(nlohmann::json::parse(json.out));
  CHECK(json.err.find("dJ/drho = ") != std::string::npos);
  const CliRun plan = run("plan --steps 100 --slots 10");
  CHECK(plan.out.find("100 steps with 10") != std::string::npos);
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
       "key 'checkpointing.schedule': must be auto, store_all, revolve, online or two_level"},
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
    CHECK(j["forward_steps"] == backsweep::revolve_min_recomputations(steps, slots));
    CHECK(j["peak_slots"].get<std::size_t>() <= std::size_t(slots));
    CHECK(j["ratio"].get<double>() ==
          doctest::Approx(double(backsweep::revolve_min_recomputations(steps, slots)) / steps));
  }
  CHECK(run("plan --steps 10").exit_code == 2);
  CHECK(run("plan --steps 0 --slots 3").exit_code == 2);
  // Numbers are not trusted: no wrap-around, no hour-long or out-of-memory plans.
  for (const auto& [arguments, says] : std::initializer_list<std::pair<std::string, std::string>>{
           {"--steps 10 --slots -2", "--slots: '-2' is not a whole number"},
           {"--steps -5 --slots 3", "--steps: '-5' is not a whole number"},
           {"--steps 1e3 --slots 3", "--steps: '1e3' is not a whole number"},
           {"--steps 10 --slots 3 --state-bytes -1", "--state-bytes"},
           {"--steps 10 --slots 8589934592", "at most 2^32"},
           {"--steps 2147483648 --slots 1", "give more slots"},
           {"--steps 100000000000 --slots 100", "give more slots"}}) {
    CAPTURE(arguments);
    const CliRun result = run("plan " + arguments);
    CHECK(result.exit_code == 2);
    CHECK(result.err.find(says) != std::string::npos);
  }
  CHECK(run("plan --steps 10 --slots 2147483648").exit_code == 0);  // more slots than steps
}

namespace {

std::string lorenz_over(double end) {
  return R"([model]
name = "lorenz63"
[initial]  # on the attractor: 20 time units from (1, 1, 1)
x = 13.79322908971583
y = 12.951847113500456
z = 34.90163699073296
[time]
end = )" + std::to_string(end) + R"(
output_step = 1.0
[solver]
method = "rk4"
step = 1e-3
[objective]
terminal = "z"
[gradient]
mode = "adjoint"
)";
}

double read_attribute(hid_t location, const char* name) {
  double value = NAN;
  const hid_t attribute = H5Aopen(location, name, H5P_DEFAULT);
  REQUIRE(attribute >= 0);
  H5Aread(attribute, H5T_NATIVE_DOUBLE, &value);
  H5Aclose(attribute);
  return value;
}

// SIR defined in the config, its initial state an expression of the parameter i0.
std::string sir_gradient_config(double beta, double i0, const std::string& mode) {
  std::ostringstream text;
  text << std::setprecision(17) << R"([model]
states     = ["S", "I", "R"]
parameters = ["beta", "gamma", "i0"]
[model.constants]
N = 1000
[model.equations]
S = "-beta*S*I/N"
I = "beta*S*I/N - gamma*I"
R = "gamma*I"
[parameters]
beta  = )" << beta << R"(
gamma = 0.1
i0    = )" << i0 << R"(
[initial]
S = "N - i0"
I = "i0"
R = 0
[time]
end = 30
[solver]
method = "rk4"
step   = 0.05
[objective]
terminal = "R/N"
integral = "(I/N)^2"
[gradient]
mode = ")" << mode << "\"\n";
  return text.str();
}

nlohmann::json run_sir(double beta, double i0, const std::string& mode) {
  const CliRun result =
      run("gradient --json " + write_config("sir.toml", sir_gradient_config(beta, i0, mode)).string());
  CAPTURE(result.err);
  REQUIRE(result.exit_code == 0);
  return nlohmann::json::parse(result.out);
}

}  // namespace

TEST_CASE("gradient: the growth monitor flags Lorenz-63 over 20 time units, not over 1") {
  const CliRun long_run = run("gradient " + write_config("long.toml", lorenz_over(20.0)).string() + " --json");
  CAPTURE(long_run.err);
  REQUIRE(long_run.exit_code == 0);
  const auto monitor = nlohmann::json::parse(long_run.out)["diagnostics"]["monitor"];
  CHECK(monitor["verdict"] == "chaotic_divergence");
  CHECK(std::abs(monitor["growth_rate"].get<double>() / 0.9056 - 1.0) < 0.15);
  CHECK(monitor["horizon"].get<double>() < 20.0);
  CHECK(long_run.err.find("warning: the adjoint monitor says chaotic_divergence") != std::string::npos);
  CHECK(long_run.err.find("multiple shooting") != std::string::npos);

  // The same in gradient.h5, with one histogram row per output interval.
  const hid_t file = H5Fopen((scratch() / "out/long/gradient.h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  REQUIRE(file >= 0);
  const hid_t group = H5Gopen2(file, "monitor", H5P_DEFAULT);
  REQUIRE(group >= 0);
  CHECK(read_attribute(group, "growth_rate") == monitor["growth_rate"].get<double>());
  const hid_t counts = H5Dopen2(group, "histograms/counts", H5P_DEFAULT);
  REQUIRE(counts >= 0);
  std::vector<unsigned long long> bins(20 * 62);
  const hid_t space = H5Dget_space(counts);
  hsize_t shape[2] = {0, 0};
  H5Sget_simple_extent_dims(space, shape, nullptr);
  CHECK(shape[0] == 20);
  CHECK(shape[1] == 62);
  H5Dread(counts, H5T_NATIVE_ULLONG, H5S_ALL, H5S_ALL, H5P_DEFAULT, bins.data());
  unsigned long long total = 0, first_interval = 0;
  for (std::size_t b = 0; b < bins.size(); ++b) total += bins[b];
  for (std::size_t b = 0; b < 62; ++b) first_interval += bins[b];
  CHECK(total == 3 * 20000);  // every component after every adjoint step
  CHECK(first_interval == 3 * 1000);
  H5Sclose(space);
  H5Dclose(counts);
  H5Gclose(group);
  H5Fclose(file);

  const CliRun short_run = run("gradient " + write_config("short.toml", lorenz_over(1.0)).string() + " --json");
  REQUIRE(short_run.exit_code == 0);
  CHECK(nlohmann::json::parse(short_run.out)["diagnostics"]["monitor"]["verdict"] != "chaotic_divergence");
}

TEST_CASE("gradient: float32 checkpoints and monitor thresholds from the config") {
  const std::string base = lorenz_over(2.0);
  const CliRun exact = run("gradient " + write_config("f64.toml", base).string() + " --json");
  const CliRun rounded = run("gradient " +
                             write_config("f32.toml", base + "[checkpointing]\nstorage = \"float32\"\n").string() +
                             " --json");
  REQUIRE(exact.exit_code == 0);
  REQUIRE(rounded.exit_code == 0);
  const auto a = nlohmann::json::parse(exact.out), b = nlohmann::json::parse(rounded.out);
  CHECK(b["diagnostics"]["storage"] == "float32");
  CHECK(2 * b["diagnostics"]["checkpoint_bytes"].get<std::size_t>() ==
        a["diagnostics"]["checkpoint_bytes"].get<std::size_t>());
  const double da = a["gradient"]["parameters"]["rho"], db = b["gradient"]["parameters"]["rho"];
  CHECK(da != db);
  CHECK(db == doctest::Approx(da).epsilon(1e-5));

  // A strict tolerance turns a short horizon into chaotic_divergence.
  const CliRun strict = run("gradient " +
                            write_config("strict.toml", lorenz_over(10.0) + "[monitor]\ntolerance = 1e-2\n").string() +
                            " --json");
  REQUIRE(strict.exit_code == 0);
  CHECK(nlohmann::json::parse(strict.out)["diagnostics"]["monitor"]["verdict"] == "chaotic_divergence");

  const CliRun bad = run("gradient " + write_config("bad.toml", base + "[monitor]\ntolerance = 2.0\n").string());
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("bad.toml:18:13: key 'monitor.tolerance': must lie between 0 and 1") != std::string::npos);
  CHECK(!fs::exists(scratch() / "out/bad"));
}

TEST_CASE("gradient: a store_all that cannot fit in this machine's memory is refused before the run") {
  // 10^11 RK4 steps of Lorenz-63 keep 4 TB.
  std::string text = replaced(lorenz_over(1e8), "output_step = 1.0\n", "");
  text = replaced(text, "step = 1e-3\n", "step = 1e-3\nmax_steps = 1000000000000\n");
  text += "[checkpointing]\nschedule = \"store_all\"\n";
  const CliRun refused = run("gradient " + write_config("huge.toml", text).string());
  CHECK(refused.exit_code == 2);
  CHECK(refused.err.find("store_all keeps all 100000000000 steps") != std::string::npos);
  CHECK(refused.err.find("[checkpointing] memory") != std::string::npos);
}

TEST_CASE("NaN reports: simulate and gradient name the same step, time and state") {
  const std::string blows_up = R"([model]
states = ["x", "y"]
parameters = ["a"]
[model.equations]
x = "a*x^2"
y = "-y"
[parameters]
a = 1
[initial]
x = 1
y = 1
[time]
end = 2
[solver]
method = "rk4"
step = 0.01
[objective]
terminal = "y + x"
[gradient]
mode = "adjoint"
)";
  const fs::path config = write_config("blows_up.toml", blows_up);
  const CliRun simulated = run("simulate " + config.string()), differentiated = run("gradient " + config.string());
  CHECK(simulated.exit_code == 1);
  CHECK(differentiated.exit_code == 1);
  CHECK(simulated.err.find("non-finite value in state 'x' at step 103, t = 1.03") != std::string::npos);
  CHECK(differentiated.err.find("non-finite value in the forward sweep at step 103, t = 1.03, in state 'x'") !=
        std::string::npos);
}

TEST_CASE("a tangent that overflows while the state stays finite is named as such") {
  // Lorenz-63's tangents grow like exp(0.9 t): past the largest double near t = 790.
  const std::string chaotic = "[model]\nname = \"lorenz63\"\n[time]\nend = 1000.0\n[solver]\nmethod = \"rk4\"\n"
                              "step = 0.01\n[objective]\nterminal = \"z\"\n[gradient]\nmode = \"tangent\"\n";
  const CliRun overflowed = run("gradient " + write_config("long_tangent.toml", chaotic).string() + " --json");
  CHECK(overflowed.exit_code == 1);
  CHECK(overflowed.err.find("non-finite tangent at step ") != std::string::npos);
  CHECK(overflowed.err.find("overflowed while the state stayed finite") != std::string::npos);
  CHECK(overflowed.err.find("non-finite value in the forward sweep") == std::string::npos);
}

TEST_CASE("gradient of a model defined in the config, through its initial expressions") {
  const double beta = 0.3, i0 = 5.0;
  const auto adjoint = run_sir(beta, i0, "adjoint");
  const auto tangent = run_sir(beta, i0, "tangent");
  CHECK(adjoint["objective"].get<double>() ==
        doctest::Approx(tangent["objective"].get<double>()).epsilon(1e-14));
  for (const char* group : {"parameters", "initial"}) {
    REQUIRE(adjoint["gradient"][group].size() == 3);
    for (auto& [name, value] : adjoint["gradient"][group].items()) {
      CAPTURE(name);
      CHECK(value.get<double>() ==
            doctest::Approx(tangent["gradient"][group][name].get<double>()).epsilon(1e-11));
    }
  }
  // Central differences of the objective the CLI prints: dJ/di0 includes the path
  // through S(0) = N - i0 and I(0) = i0.
  auto objective = [&](double b, double i) { return run_sir(b, i, "adjoint")["objective"].get<double>(); };
  const double hb = 1e-6, hi = 1e-4;
  const double fd_beta = (objective(beta + hb, i0) - objective(beta - hb, i0)) / (2 * hb);
  const double fd_i0 = (objective(beta, i0 + hi) - objective(beta, i0 - hi)) / (2 * hi);
  const auto& dp = adjoint["gradient"]["parameters"];
  CHECK(dp["beta"].get<double>() == doctest::Approx(fd_beta).epsilon(1e-6));
  CHECK(dp["i0"].get<double>() == doctest::Approx(fd_i0).epsilon(1e-6));
  // Without the initial path dJ/di0 would be 0 (i0 is in no equation); with it, it is
  // dJ/dI(0) - dJ/dS(0).
  const auto& dy0 = adjoint["gradient"]["initial"];
  CHECK(dp["i0"].get<double>() ==
        doctest::Approx(dy0["I"].get<double>() - dy0["S"].get<double>()).epsilon(1e-12));
  CHECK(std::abs(dp["i0"].get<double>()) > 1e-4);
}

TEST_CASE("gradient of a stiff model: sdirk4's discrete adjoint, CVODES' adjoint, and dopri5 called stiff") {
  std::ifstream in(std::string(BACKSWEEP_SOURCE_DIR) + "/examples/robertson_gradient.toml");
  const std::string base{std::istreambuf_iterator<char>(in), {}};
  auto gradient_of = [&](const std::string& name, const std::string& method) {
    const CliRun result = run("gradient " +
                              write_config(name, replaced(base, "method = \"sdirk4\"", method)).string() + " --json");
    CAPTURE(result.err);
    REQUIRE(result.exit_code == 0);
    return nlohmann::json::parse(result.out);
  };
  const auto ours = gradient_of("sdirk4.toml", "method = \"sdirk4\"");
  const auto cvodes = gradient_of("cvodes.toml", "method = \"cvodes_bdf\"");
  const auto explicit_run = gradient_of("dopri5.toml", "method = \"dopri5\"");
  CHECK(ours["diagnostics"]["monitor"]["verdict"] == "stable");
  CHECK(ours["diagnostics"]["stiffness"].is_null());
  CHECK(cvodes["diagnostics"]["schedule"] == "cvodes");
  for (auto& [name, value] : ours["gradient"]["parameters"].items()) {
    CAPTURE(name);
    CHECK(cvodes["gradient"]["parameters"][name].get<double>() ==
          doctest::Approx(value.get<double>()).epsilon(1e-5));
  }
  CHECK(explicit_run["diagnostics"]["monitor"]["verdict"] == "stiff");
  CHECK(explicit_run["diagnostics"]["stiffness"]["stiff"] == true);
  CHECK(explicit_run["diagnostics"]["steps"].get<std::size_t>() > 20 * ours["diagnostics"]["steps"].get<std::size_t>());

  // The tangent by CVODES' forward sensitivities agrees as well.
  const CliRun tangent_run = run(
      "gradient " +
      write_config("tangent.toml", replaced(replaced(base, "method = \"sdirk4\"", "method = \"cvodes_bdf\""),
                                            "mode = \"adjoint\"", "mode = \"tangent\""))
          .string() +
      " --json");
  CAPTURE(tangent_run.err);
  REQUIRE(tangent_run.exit_code == 0);
  const auto tangent = nlohmann::json::parse(tangent_run.out);
  for (auto& [name, value] : ours["gradient"]["parameters"].items()) {
    CAPTURE(name);
    CHECK(tangent["gradient"]["parameters"][name].get<double>() ==
          doctest::Approx(value.get<double>()).epsilon(1e-5));
  }
}

TEST_CASE("stiff examples: the discrete adjoint = the forward tangent of the same solver") {
  auto read_example = [](const std::string& name) {
    std::ifstream in(std::string(BACKSWEEP_SOURCE_DIR) + "/examples/" + name);
    return std::string{std::istreambuf_iterator<char>(in), {}};
  };
  // Each example with a tight Newton tolerance (both sweeps differentiate the stage
  // equations as solved) and `<mode>` standing for the gradient mode.
  const std::string examples[] = {
      replaced(replaced(read_example("robertson_gradient.toml"), "[solver]", "[solver]\nnewton_tolerance = 1e-13"),
               "mode = \"adjoint\"", "mode = \"<mode>\""),
      // 80 unknowns instead of 10^4: the tangent takes a Dual solve per 8 of them.
      replaced(replaced(replaced(replaced(read_example("brusselator_stiff.toml"), "points = 5000", "points = 40"),
                                 "\"u2499\"", "\"u20\""),
                        "[solver]", "[solver]\nnewton_tolerance = 1e-13"),
               "[gradient]", "[gradient]\nmode = \"<mode>\""),
      // On the slow manifold, before the first relaxation jump: the jump, unstable, amplifies
      // the stage residual left by Newton to about 1e-7 in the difference.
      replaced(replaced(read_example("van_der_pol_stiff.toml"), "end = 3000.0", "end = 500.0"), "[solver]",
               "[solver]\nnewton_tolerance = 1e-13") +
          "[objective]\nterminal = \"x\"\n[gradient]\nmode = \"<mode>\"\n",
  };
  int index = 0;
  for (const std::string& text : examples) {
    auto gradient_in = [&](const std::string& mode) {
      const std::string name = "stiff" + std::to_string(index) + mode + ".toml";
      const CliRun result = run("gradient " + write_config(name, replaced(text, "<mode>", mode)).string() + " --json");
      CAPTURE(result.err);
      REQUIRE(result.exit_code == 0);
      return nlohmann::json::parse(result.out)["gradient"];
    };
    CAPTURE(text);
    const auto adjoint = gradient_in("adjoint"), tangent = gradient_in("tangent");
    double difference = 0, scale = 0;
    for (const char* kind : {"parameters", "initial"}) {
      if (!adjoint.contains(kind)) continue;
      for (auto& [name, value] : adjoint[kind].items()) {
        difference = std::max(difference, std::abs(value.get<double>() - tangent[kind][name].get<double>()));
        scale = std::max(scale, std::abs(value.get<double>()));
      }
    }
    MESSAGE("example " << index << ": adjoint vs tangent " << difference / scale);
    CHECK(scale > 0);
    CHECK(difference <= 1e-9 * scale);
    ++index;
  }
}

namespace {

// Each non-null leaf of `expected` is an attribute of `group` (an object, a subgroup) with
// the same value; returns how many there were.
std::size_t check_same_record(const nlohmann::json& expected, hid_t group, const std::string& path) {
  std::size_t leaves = 0;
  for (const auto& [name, value] : expected.items()) {
    CAPTURE(path + name);
    if (value.is_null()) continue;
    if (value.is_object()) {
      const hid_t subgroup = H5Gopen2(group, name.c_str(), H5P_DEFAULT);
      REQUIRE(subgroup >= 0);
      leaves += check_same_record(value, subgroup, path + name + "/");
      H5Gclose(subgroup);
      continue;
    }
    ++leaves;
    REQUIRE(H5Aexists(group, name.c_str()) > 0);
    if (value.is_string()) CHECK(read_text_attribute(group, name.c_str()) == value.get<std::string>());
    else if (value.is_boolean()) CHECK(read_attribute(group, name.c_str()) == (value.get<bool>() ? 1.0 : 0.0));
    else CHECK(read_attribute(group, name.c_str()) == value.get<double>());
  }
  return leaves;
}

std::size_t attribute_count(hid_t group) {
  hsize_t at = 0;
  std::size_t count = 0;
  H5Aiterate2(group, H5_INDEX_NAME, H5_ITER_NATIVE, &at,
              [](hid_t, const char*, const H5A_info_t*, void* n) {
                ++*static_cast<std::size_t*>(n);
                return herr_t(0);
              },
              &count);
  return count;
}

}  // namespace

TEST_CASE("gradient: --json and gradient.h5 carry the same diagnostics under the same names") {
  const CliRun run_json = run("gradient " + write_config("record.toml", example()).string() +
                              " --json --output-dir out/record");
  CAPTURE(run_json.err);
  REQUIRE(run_json.exit_code == 0);
  nlohmann::json diagnostics = nlohmann::json::parse(run_json.out)["diagnostics"];
  const nlohmann::json monitor = diagnostics["monitor"];
  diagnostics.erase("monitor");  // in its own group, /monitor
  REQUIRE(monitor.is_object());
  const hid_t file = H5Fopen((scratch() / "out/record/gradient.h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  REQUIRE(file >= 0);
  const hid_t group = H5Gopen2(file, "diagnostics", H5P_DEFAULT), monitor_group = H5Gopen2(file, "monitor", H5P_DEFAULT);
  REQUIRE(group >= 0);
  REQUIRE(monitor_group >= 0);
  // Every JSON value is in the file; the file has nothing JSON lacks (the monitor's
  // tolerance aside, a config value it writes beside the verdict).
  CHECK(check_same_record(diagnostics, group, "diagnostics/") >= 20);
  std::size_t in_file = attribute_count(group);
  for (const char* subgroup : {"bytes_written", "bytes_read", "stiffness", "nonfinite"}) {
    if (!diagnostics[subgroup].is_object()) continue;
    const hid_t g = H5Gopen2(group, subgroup, H5P_DEFAULT);
    REQUIRE(g >= 0);
    in_file += attribute_count(g);
    H5Gclose(g);
  }
  std::size_t in_json = 0;
  const nlohmann::json leaves = diagnostics.flatten();
  for (const auto& [name, value] : leaves.items()) in_json += value.is_null() ? 0 : 1;
  CHECK(in_file == in_json);
  // The monitor's non-finite numbers are null in JSON, Inf in the file.
  CHECK(attribute_count(monitor_group) == check_same_record(monitor, monitor_group, "monitor/") +
                                              std::size_t(std::count(monitor.begin(), monitor.end(), nullptr)) + 1);
  H5Gclose(monitor_group);
  H5Gclose(group);
  H5Fclose(file);
}
