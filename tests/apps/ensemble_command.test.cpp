// Runs the real `backsweep gradient` on configs with [ensemble]: a gradient a member.
#include <doctest/doctest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>

#include <hdf5.h>
#include <nlohmann/json.hpp>

#include "tests/apps/run_cli.hpp"

namespace fs = std::filesystem;

namespace {

fs::path scratch() { return scratch_folder("ensemble"); }

CliRun run(const std::string& arguments) { return run_cli(arguments, scratch()); }

fs::path write_file(const std::string& name, const std::string& text) {
  const fs::path path = scratch() / name;
  std::ofstream(path) << text;
  return path;
}

// Lorenz-63 over [0, 1] with an objective that takes every path: terminal, integral and
// an observation. `rho` and `x` are what the members vary.
std::string lorenz(const std::string& rho, const std::string& x, const std::string& extra) {
  return R"([model]
name = "lorenz63"
[parameters]
rho = )" + rho + R"(
[initial]
x = )" + x + R"(
y = 1.0
z = 1.0
[time]
start = 0.0
end   = 1.0
[solver]
method = "dopri5"
rtol = 1e-8
atol = 1e-10
)" + extra + R"(
[objective]
terminal = "z"
integral = "x^2 + y^2"
[[objective.observation]]
time    = 0.5
formula = "(x - 2.5)^2"
[gradient]
mode = "adjoint"
[checkpointing]
schedule = "revolve"
slots    = 8
[output]
dir = "out"
)";
}

nlohmann::json gradient_json(const std::string& name, const std::string& config) {
  const CliRun r = run("gradient " + write_file(name, config).string() + " --json");
  CAPTURE(r.err);
  REQUIRE(r.exit_code == 0);
  return nlohmann::json::parse(r.out);
}

std::vector<hsize_t> dataset_shape(hid_t file, const char* name) {
  const hid_t set = H5Dopen2(file, name, H5P_DEFAULT);
  REQUIRE(set >= 0);
  const hid_t space = H5Dget_space(set);
  std::vector<hsize_t> shape(std::size_t(H5Sget_simple_extent_ndims(space)));
  H5Sget_simple_extent_dims(space, shape.data(), nullptr);
  H5Sclose(space);
  H5Dclose(set);
  return shape;
}

template <class T>
std::vector<T> read_dataset(hid_t file, const char* name, hid_t type, std::size_t size) {
  std::vector<T> values(size);
  const hid_t set = H5Dopen2(file, name, H5P_DEFAULT);
  REQUIRE(set >= 0);
  H5Dread(set, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data());
  H5Dclose(set);
  return values;
}

}  // namespace

TEST_CASE("members from CSV: each member's gradient is bitwise the single run at its values") {
  write_file("members.csv", "\xEF\xBB\xBFrho, x\n20, 1.0\n28, 0.5\n\n35.5, 2.0\n");  // a BOM, a blank line
  const std::string ensemble = "[ensemble]\nmembers = \"members.csv\"\n";
  const auto all = gradient_json("ensemble.toml", lorenz("28.0", "1.0", "") + ensemble);
  REQUIRE(all["ensemble"]["members"] == 3);
  CHECK(all["ensemble"]["failed"] == 0);
  CHECK(all["ensemble"]["backend"] == "cpu");
  const std::pair<const char*, const char*> rows[] = {{"20", "1.0"}, {"28", "0.5"}, {"35.5", "2.0"}};
  for (std::size_t b = 0; b < 3; ++b) {
    CAPTURE(b);
    const auto single = gradient_json("single.toml", lorenz(rows[b].first, rows[b].second, ""));
    const auto& member = all["members"][b];
    CHECK(member["values"]["rho"].get<double>() == std::stod(rows[b].first));
    CHECK(member["status"] == "success");
    CHECK(member["verdict"] == single["diagnostics"]["monitor"]["verdict"]);
    CHECK(member["objective"].get<double>() == single["objective"].get<double>());
    CHECK(member["gradient"] == single["gradient"]);  // every parameter and initial state
  }

  SUBCASE("backend omp: members in parallel, bitwise the same") {
    const CliRun r = run("gradient " +
                         write_file("omp.toml", lorenz("28.0", "1.0", "backend = \"omp\"") + ensemble).string() +
                         " --json");
    CAPTURE(r.err);
#if BACKSWEEP_OPENMP_BUILT
    REQUIRE(r.exit_code == 0);
    const auto omp = nlohmann::json::parse(r.out);
    CHECK(omp["ensemble"]["backend"] == "omp");
    CHECK(omp["members"] == all["members"]);
#else
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("no OpenMP backend") != std::string::npos);
#endif
  }
}

TEST_CASE("seeded Latin-hypercube samples: one per stratum, reproducible, a row a member in gradient.h5") {
  // examples/lorenz63_ensemble.toml with 64 members instead of 10^4.
  std::ifstream in(std::string(BACKSWEEP_SOURCE_DIR) + "/examples/lorenz63_ensemble.toml");
  std::string config{std::istreambuf_iterator<char>(in), {}};
  for (const auto& [from, to] : {std::pair<std::string, std::string>{"samples = 10000", "samples = 64"},
                                 {"out/lorenz63_ensemble", "out"},
                                 {"backend = \"omp\"", BACKSWEEP_OPENMP_BUILT ? "backend = \"omp\"" : ""}}) {
    REQUIRE(config.find(from) != std::string::npos);
    config.replace(config.find(from), from.size(), to);
  }
  const auto first = gradient_json("samples.toml", config);
  const auto again = gradient_json("samples.toml", config);
  CHECK(first["members"] == again["members"]);
  REQUIRE(first["members"].size() == 64);
  std::set<int> rho_strata, x_strata;
  for (const auto& member : first["members"]) {
    const double rho = member["values"]["rho"], x = member["values"]["x"];
    rho_strata.insert(int(std::floor((rho - 20.0) / 20.0 * 64)));
    x_strata.insert(int(std::floor((x + 1.0) / 2.0 * 64)));
  }
  CHECK(rho_strata.size() == 64);
  CHECK(x_strata.size() == 64);
  CHECK(*rho_strata.begin() == 0);
  CHECK(*rho_strata.rbegin() == 63);

  const hid_t file = H5Fopen((scratch() / "out/gradient.h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  REQUIRE(file >= 0);
  CHECK(dataset_shape(file, "ensemble/values") == std::vector<hsize_t>{64, 2});
  CHECK(dataset_shape(file, "gradient/parameters") == std::vector<hsize_t>{64, 3});
  CHECK(dataset_shape(file, "gradient/initial") == std::vector<hsize_t>{64, 3});
  const auto drho = read_dataset<double>(file, "gradient/parameters", H5T_NATIVE_DOUBLE, 64 * 3);
  const auto status = read_dataset<unsigned long long>(file, "ensemble/status", H5T_NATIVE_ULLONG, 64);
  const auto verdict = read_dataset<unsigned long long>(file, "monitor/verdict", H5T_NATIVE_ULLONG, 64);
  H5Fclose(file);
  for (std::size_t b = 0; b < 64; ++b) {  // parameters in model order: sigma, rho, beta
    CHECK(drho[b * 3 + 1] == first["members"][b]["gradient"]["parameters"]["rho"].get<double>());
    CHECK(status[b] == 0);
    CHECK(verdict[b] <= 3);
  }
}

TEST_CASE("an [initial] expression is evaluated at the member's parameters, and dJ/dp flows through it") {
  const auto config = [](const std::string& a, const std::string& extra) {
    return R"([model]
states = ["y"]
parameters = ["a"]
[model.equations]
y = "-a*y"
[parameters]
a = )" + a + R"(
[initial]
y = "2*a"
[time]
start = 0.0
end = 1.0
[solver]
method = "rk4"
step = 0.01
[objective]
terminal = "y^2"
[output]
dir = "out"
)" + extra;
  };
  write_file("a.csv", "a\n0.5\n1.5\n");
  const auto all = gradient_json("initial.toml", config("1.0", "[ensemble]\nmembers = \"a.csv\"\n"));
  for (const auto& [b, a] : {std::pair{0, "0.5"}, std::pair{1, "1.5"}}) {
    const auto single = gradient_json("one.toml", config(a, ""));
    CHECK(all["members"][b]["gradient"] == single["gradient"]);
    // y(1) = 2a e^-a, J = 4a^2 e^-2a, dJ/da = 8a(1 - a) e^-2a (RK4 with h = 0.01: 1e-8)
    const double x = std::stod(a);
    CHECK(all["members"][b]["gradient"]["parameters"]["a"].get<double>() ==
          doctest::Approx(8 * x * (1 - x) * std::exp(-2 * x)).epsilon(1e-7));
  }
  SUBCASE("a state given by an expression cannot be varied") {
    write_file("y.csv", "y\n1.0\n");
    const CliRun r = run("gradient " + write_file("y.toml", config("1.0", "[ensemble]\nmembers = \"y.csv\"\n")).string());
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("y.csv:1:1") != std::string::npos);
    CHECK(r.err.find("vary the parameters") != std::string::npos);
  }
}

TEST_CASE("a member that fails is recorded and does not stop the others; all failing is exit 1") {
  const auto config = [](const std::string& csv) {
    return R"([model]
states = ["y"]
parameters = ["c"]
[model.equations]
y = "y^2 + c"
[parameters]
c = 0.0
[initial]
y = 0.5
[time]
start = 0.0
end = 1.0
[solver]
method = "rk4"
step = 0.001
[objective]
terminal = "y"
[ensemble]
members = ")" + csv + R"("
[output]
dir = "out"
)";
  };
  write_file("some.csv", "y\n0.5\n2.0\n0.25\n");  // y0 = 2 blows up at t = 1/2
  const CliRun some = run("gradient " + write_file("some.toml", config("some.csv")).string() + " --json");
  CAPTURE(some.err);
  REQUIRE(some.exit_code == 0);
  CHECK(some.err.find("warning: 1 of 3 members failed; member 2") != std::string::npos);
  const auto j = nlohmann::json::parse(some.out);
  CHECK(j["ensemble"]["failed"] == 1);
  CHECK(j["members"][0]["status"] == "success");
  CHECK(j["members"][1]["status"] == "non_finite_state");
  CHECK(j["members"][1]["objective"].is_null());
  CHECK(j["members"][1]["gradient"]["initial"]["y"].is_null());
  CHECK(j["members"][2]["objective"].get<double>() == doctest::Approx(0.25 / (1 - 0.25)).epsilon(1e-9));

  const auto before = fs::last_write_time(scratch() / "out/gradient.h5");
  write_file("none.csv", "y\n2.0\n3.0\n");
  const CliRun none = run("gradient " + write_file("none.toml", config("none.csv")).string());
  CHECK(none.exit_code == 1);
  CHECK(none.err.find("every member's gradient failed") != std::string::npos);
  CHECK(fs::last_write_time(scratch() / "out/gradient.h5") == before);  // the earlier output is kept
}

TEST_CASE("bad [ensemble] input: exit 2 naming the file, line and key or column") {
  write_file("good.csv", "rho\n20\n");
  write_file("unknown.csv", "rho, rhoo\n20, 1\n");
  write_file("text.csv", "rho\n20\n2O\n");
  write_file("short.csv", "rho, x\n20\n");
  write_file("header.csv", "rho\n");
  fs::create_directories(scratch() / "folder.csv");
  const std::pair<std::string, std::vector<std::string>> cases[] = {
      {lorenz("28.0", "1.0", "") + "[ensemble]\nmembers = \"unknown.csv\"\n", {"unknown.csv:1:6", "unknown name 'rhoo'"}},
      {lorenz("28.0", "1.0", "") + "[ensemble]\nmembers = \"text.csv\"\n", {"text.csv:3:1", "'2O' is not a finite number"}},
      {lorenz("28.0", "1.0", "") + "[ensemble]\nmembers = \"short.csv\"\n", {"short.csv:2:1", "has 1 fields, the header 2"}},
      {lorenz("28.0", "1.0", "") + "[ensemble]\nmembers = \"header.csv\"\n", {"header.csv", "no member"}},
      {lorenz("28.0", "1.0", "") + "[ensemble]\nmembers = \"missing.csv\"\n", {"missing.csv", "cannot read"}},
      {lorenz("28.0", "1.0", "") + "[ensemble]\nmembers = \"folder.csv\"\n", {"folder.csv", "is a directory"}},
      {lorenz("28.0", "1.0", "") + "[ensemble]\nmembers = \"good.csv\"\nsamples = 4\n", {"ensemble.members", "either"}},
      {lorenz("28.0", "1.0", "") + "[ensemble]\nsamples = 4\n", {"ensemble.samples", "[ensemble.ranges]"}},
      {lorenz("28.0", "1.0", "") + "[ensemble]\nsamples = 4\n[ensemble.ranges]\nrho = [40, 20]\n",
       {"ensemble.ranges.rho", "lower < upper"}},
      {lorenz("28.0", "1.0", "") + "[ensemble]\nsamples = 4\n[ensemble.ranges]\nomega = [1, 2]\n",
       {"ensemble.ranges.omega", "unknown name"}},
      {lorenz("28.0", "1.0", "") + "[ensemble]\nmembers = \"good.csv\"\nsize = 3\n", {"ensemble.size"}},
      {lorenz("28.0", "1.0", "backend = \"omp\""), {"solver.backend", "[ensemble] members and a fit's starts on cpu or omp"}},
      {lorenz("28.0", "1.0", "backend = \"cuda\"") + "[ensemble]\nmembers = \"good.csv\"\n", {"solver.backend"}},
  };
  for (const auto& [config, expected] : cases) {
    const CliRun r = run("gradient " + write_file("bad.toml", config).string());
    CAPTURE(config);
    CAPTURE(r.err);
    CHECK(r.exit_code == 2);
    for (const auto& piece : expected) CHECK(r.err.find(piece) != std::string::npos);
  }
  // Disk checkpoints: every member would write the same file.
  std::string disk = lorenz("28.0", "1.0", "") + "[ensemble]\nmembers = \"good.csv\"\n";
  disk.replace(disk.find("schedule = \"revolve\""), 20, "schedule = \"two_level\"\ndisk = \"1MiB\"");
  const CliRun r = run("gradient " + write_file("disk.toml", disk).string());
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("checkpointing.disk") != std::string::npos);
}
