// Runs the real `backsweep simulate` program on config files written to disk.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <hdf5.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/builtin/grid_kernels.hpp"
#include "models/builtin/registry.hpp"
#include "solvers/method.hpp"
#include "tests/apps/run_cli.hpp"
#include "tests/h5_read.hpp"

namespace fs = std::filesystem;

namespace {

fs::path scratch() { return scratch_folder("cli"); }

std::string slurp(const fs::path& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), {}};
}

CliRun run(const std::string& arguments) { return run_cli(arguments, scratch()); }

fs::path write_config(const std::string& name, const std::string& text) {
  const fs::path path = scratch() / name;
  std::ofstream(path) << text;
  return path;
}

const std::string kVanDerPol = R"([model]
name = "van_der_pol"
[parameters]
mu = 0.5
[time]
end = 2.0
output = [1.0, 2.0]
[solver]
method = "rk4"
step = 0.01
[output]
dir = "vdp"
)";

}  // namespace

TEST_CASE("simulate writes CSV, HDF5 and JSON that agree") {
  const fs::path config = write_config("vdp.toml", kVanDerPol);
  const CliRun result = run("simulate " + config.string() + " --json");
  CAPTURE(result.err);
  REQUIRE(result.exit_code == 0);
  const auto json = nlohmann::json::parse(result.out);
  CHECK(json["times"] == nlohmann::json::array({0.0, 1.0, 2.0}));
  const std::vector<double> x = json["states"]["x"], y = json["states"]["y"];
  REQUIRE(x.size() == 3);
  CHECK(x[0] == 2.0);

  // CSV rows: time,x,y with 17 digits, so they read back exactly.
  std::istringstream csv(slurp(scratch() / "vdp" / "trajectory.csv"));
  std::string line;
  std::getline(csv, line);
  CHECK(line == "time,x,y");
  for (std::size_t row = 0; row < 3; ++row) {
    REQUIRE(std::getline(csv, line));
    double t = 0, a = 0, b = 0;
    REQUIRE(std::sscanf(line.c_str(), "%lf,%lf,%lf", &t, &a, &b) == 3);
    CHECK(a == x[row]);
    CHECK(b == y[row]);
  }

  const hid_t file = H5Fopen((scratch() / "vdp" / "trajectory.h5").c_str(), H5F_ACC_RDONLY,
                             H5P_DEFAULT);
  REQUIRE(file >= 0);
  double times[3] = {}, states[6] = {};
  const hid_t times_set = H5Dopen2(file, "time", H5P_DEFAULT);
  const hid_t states_set = H5Dopen2(file, "states", H5P_DEFAULT);
  H5Dread(times_set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, times);
  H5Dread(states_set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, states);
  CHECK(times[2] == 2.0);
  for (std::size_t row = 0; row < 3; ++row) {
    CHECK(states[2 * row] == x[row]);
    CHECK(states[2 * row + 1] == y[row]);
  }
  double mu = 0;
  const hid_t attribute = H5Aopen_by_name(file, "parameters", "mu", H5P_DEFAULT, H5P_DEFAULT);
  H5Aread(attribute, H5T_NATIVE_DOUBLE, &mu);
  CHECK(mu == 0.5);
  H5Aclose(attribute);
  // Where the file came from: the run's version, id, start time and config.
  CHECK(read_text_attribute(file, "config") == kVanDerPol);
  CHECK(read_text_attribute(file, "config_file") == config.string());
  CHECK(read_text_attribute(file, "backsweep_version").find('.') != std::string::npos);
  CHECK(read_text_attribute(file, "run_id").size() == 16);
  CHECK(read_text_attribute(file, "started").back() == 'Z');
  H5Dclose(states_set);
  H5Dclose(times_set);
  H5Fclose(file);
}

TEST_CASE("bad input exits 2, names file, line and key, and writes nothing") {
  std::string text = kVanDerPol;
  text.replace(text.find("step = 0.01"), 11, "step = -0.01");
  text.replace(text.find("dir = \"vdp\""), 11, "dir = \"bad\"");
  const fs::path config = write_config("bad.toml", text);
  const CliRun result = run("simulate " + config.string());
  CHECK(result.exit_code == 2);
  CHECK(result.err.find("bad.toml:10:8: key 'solver.step': must be > 0") != std::string::npos);
  CHECK_FALSE(fs::exists(scratch() / "bad"));

  // With --json the failure is a JSON object on stdout too.
  const CliRun json = run("simulate " + config.string() + " --json");
  CHECK(json.exit_code == 2);
  const auto error = nlohmann::json::parse(json.out)["error"];
  CHECK(error["exit_code"] == 2);
  CHECK(error["line"] == 10);
  CHECK(error["column"] == 8);
  CHECK(error["key"] == "solver.step");
  CHECK(error["file"] == config.string());
  CHECK(error["message"].get<std::string>().find("must be > 0") != std::string::npos);

  CHECK(run("simulate").exit_code == 2);
  CHECK(run("simulate " + (scratch() / "absent.toml").string()).exit_code == 2);
  CHECK(run("frobnicate x.toml").exit_code == 2);
}

TEST_CASE("input hygiene: hints for ** and unquoted expressions, huge literals, a directory as config") {
  const auto error_of = [&](const std::string& name, const std::string& text) {
    const CliRun result = run("simulate " + write_config(name, text).string());
    CHECK(result.exit_code == 2);
    return result.err;
  };
  const std::string model = "[model]\nstates = [\"x\"]\nparameters = [\"a\"]\n[model.equations]\n";
  const std::string rest = "[parameters]\na = 1\n[initial]\nx = 1\n[time]\nend = 1\n";
  CHECK(error_of("power.toml", model + "x = \"-a*x**2\"\n" + rest)
            .find("power.toml:5:11: key 'model.equations.x': unexpected '*' (powers are written x^2)") !=
        std::string::npos);
  CHECK(error_of("unquoted.toml", model + "x = -a*x\n" + rest).find("quote it") != std::string::npos);
  CHECK(error_of("huge.toml", model + "x = \"-a*x*1e400\"\n" + rest)
            .find("huge.toml:5:11: key 'model.equations.x': the number 1e400 is out of double range") !=
        std::string::npos);
  const CliRun directory = run("simulate " + scratch().string());
  CHECK(directory.exit_code == 2);
  CHECK(directory.err.find("is a directory, not a config file") != std::string::npos);
}

#ifdef __SANITIZE_ADDRESS__
constexpr bool kAddressSanitizer = true;  // it reserves terabytes of address space: no ulimit -v
#else
constexpr bool kAddressSanitizer = false;
#endif

TEST_CASE("--set KEY=VALUE and --output-dir override the config, typed like its keys") {
  const fs::path config = write_config("base.toml", kVanDerPol);
  std::string changed = kVanDerPol;
  changed.replace(changed.find("mu = 0.5"), 8, "mu = 0.7");
  changed.replace(changed.find("method = \"rk4\""), 14, "method = \"heun\"");
  const CliRun expected = run("simulate " + write_config("changed.toml", changed).string() + " --json");
  REQUIRE(expected.exit_code == 0);

  // Before or after the file; a string key takes the text as it is.
  const CliRun overridden = run("simulate --set parameters.mu=0.7 " + config.string() +
                                " --set solver.method=heun --output-dir elsewhere/run2 --json");
  CAPTURE(overridden.err);
  REQUIRE(overridden.exit_code == 0);
  CHECK(nlohmann::json::parse(overridden.out) == nlohmann::json::parse(expected.out));
  CHECK(fs::exists(scratch() / "elsewhere/run2/trajectory.csv"));
  REQUIRE(run("simulate " + config.string() + " --output-dir 2024-06-01").exit_code == 0);  // not a TOML date
  CHECK(fs::exists(scratch() / "2024-06-01/trajectory.csv"));

  struct Case {
    std::string option, words;
  };
  for (const Case& c : std::vector<Case>{
           {"--set solver.step=-1", "--set solver.step=-1: key 'solver.step': must be > 0"},
           {"--set solver.step=abc", "key 'solver.step': is not a TOML value"},
           {"--set solver", "--set solver: must be KEY=VALUE"},
           {"--set solver..step=1", "is not a dotted key"},
           {"--set solver.step.x=1", "key 'solver.step.x': 'step' is not a table"},
           {"--set solver.stepp=0.1", "--set solver.stepp=0.1: key 'solver.stepp': unknown key"},
       }) {
    CAPTURE(c.option);
    const CliRun result = run("simulate " + config.string() + " " + c.option);
    CHECK(result.exit_code == 2);
    CHECK(result.err.find(c.words) != std::string::npos);
  }
}

namespace {

// Starts `backsweep simulate <config>` in the scratch folder without waiting for it.
pid_t start_simulate(const fs::path& config) {
  const std::string working_dir = scratch().string(), cli = BACKSWEEP_CLI;  // before fork: no allocation after
  const pid_t child = ::fork();
  if (child == 0) {
    if (::chdir(working_dir.c_str()) != 0) ::_exit(127);
    const int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, 1);
    ::dup2(null, 2);
    ::execl(cli.c_str(), cli.c_str(), "simulate", config.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  return child;
}

// The staging folders of output sets ("." + folder name + ".set-" + pid) beside `folder`.
std::vector<std::string> staging_folders(const fs::path& folder) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(folder.parent_path()))
    if (entry.path().filename().string().starts_with("." + folder.filename().string() + ".set-"))
      names.push_back(entry.path().filename().string());
  return names;
}

double h5_parameter(const fs::path& file_path, const char* name) {
  const hid_t file = H5Fopen(file_path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  REQUIRE(file >= 0);
  double value = 0;
  const hid_t attribute = H5Aopen_by_name(file, "parameters", name, H5P_DEFAULT, H5P_DEFAULT);
  H5Aread(attribute, H5T_NATIVE_DOUBLE, &value);
  H5Aclose(attribute);
  H5Fclose(file);
  return value;
}

// kVanDerPol writing every step of 2·10^5 into `dir`, with mu as given.
std::string long_run(const std::string& dir, const std::string& mu) {
  std::string text = kVanDerPol;
  const std::string times = "end = 2.0\noutput = [1.0, 2.0]";
  text.replace(text.find(times), times.size(), "end = 2e3");
  text.replace(text.find("dir = \"vdp\""), 11, "dir = \"" + dir + "\"");
  text.replace(text.find("mu = 0.5"), 8, "mu = " + mu);
  return text;
}

}  // namespace

TEST_CASE("outputs are one set: SIGKILL at any moment leaves the old set or the new one, never a mix") {
  const fs::path folder = scratch() / "set";
  const fs::path old_config = write_config("set_old.toml", long_run("set", "0.5")),
                 new_config = write_config("set_new.toml", long_run("set_reference", "0.7"));
  REQUIRE(run("simulate " + new_config.string()).exit_code == 0);
  const std::string new_csv = slurp(scratch() / "set_reference" / "trajectory.csv");
  const auto started = std::chrono::steady_clock::now();
  REQUIRE(run("simulate " + old_config.string()).exit_code == 0);
  const double run_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  const std::string old_csv = slurp(folder / "trajectory.csv");
  std::ofstream(folder / "notes.txt") << "an earlier output the new run does not write";
  fs::remove_all(scratch() / "set_reference");
  const fs::path config = write_config("set_changed.toml", long_run("set", "0.7"));

  std::mt19937 random(12345);  // kill times spread over the whole run, its commit included
  std::uniform_real_distribution<double> moment(0.0, 1.3 * run_seconds);
  int old_sets = 0, new_sets = 0;
  for (int trial = 0; trial < (kAddressSanitizer ? 8 : 16); ++trial) {
    const pid_t child = start_simulate(config);
    ::usleep(useconds_t(moment(random) * 1e6));
    ::kill(child, SIGKILL);
    ::waitpid(child, nullptr, 0);
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(folder)) names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    CAPTURE(trial);
    REQUIRE(names == std::vector<std::string>{"notes.txt", "simulate_run.json", "trajectory.csv", "trajectory.h5"});
    const std::string csv = slurp(folder / "trajectory.csv");
    const double mu = h5_parameter(folder / "trajectory.h5", "mu");
    const std::string record = nlohmann::json::parse(slurp(folder / "simulate_run.json"))["config"];
    const bool old_record = record.find("mu = 0.5") != std::string::npos;
    if (csv == old_csv && mu == 0.5 && old_record) ++old_sets;
    else if (csv == new_csv && mu == 0.7 && !old_record) ++new_sets;
    else FAIL("a mixed set: mu = " << mu << " in trajectory.h5, the CSV and the run record "
                                   << (csv == old_csv ? "old" : "other") << ", " << (old_record ? "old" : "other"));
    if (csv == new_csv) {  // back to the old set for the next trial
      fs::remove_all(folder);
      REQUIRE(run("simulate " + old_config.string()).exit_code == 0);
      std::ofstream(folder / "notes.txt") << "an earlier output the new run does not write";
    }
  }
  MESSAGE("old sets " << old_sets << ", new sets " << new_sets);
  CHECK(old_sets > 0);
  // The staging folders killed runs left go with the next run that writes there, and a
  // killed run's disk checkpoint file is not carried into the new set.
  const pid_t dead = ::fork();
  if (dead == 0) ::_exit(0);
  ::waitpid(dead, nullptr, 0);
  const std::string checkpoints = ".backsweep-checkpoints-" + std::to_string(dead) + "-0.h5";
  std::ofstream(folder / checkpoints) << "left by a killed run";
  REQUIRE(run("simulate " + config.string()).exit_code == 0);
  CHECK(staging_folders(folder).empty());
  CHECK_FALSE(fs::exists(folder / checkpoints));
  CHECK(slurp(folder / "notes.txt") == "an earlier output the new run does not write");
}

TEST_CASE("SIGTERM while writing leaves no temporaries; a live run's staging folder is not touched") {
  const fs::path config = write_config("term.toml", long_run("term", "0.5")), folder = scratch() / "term";
  fs::create_directories(folder);
  const std::string live = ".term.set-" + std::to_string(::getpid());  // this test's pid: a live process
  fs::create_directories(folder.parent_path() / live);
  const pid_t child = start_simulate(config);
  const fs::path staging = folder.parent_path() / (".term.set-" + std::to_string(child));
  bool seen = false;  // its CSV being written in its staging folder, then SIGTERM
  for (int tries = 0; tries < 60000 && !seen; ++tries) {
    seen = fs::exists(staging / ("trajectory.csv.tmp-" + std::to_string(child)));
    if (!seen) ::usleep(500);
  }
  CHECK(seen);
  ::kill(child, SIGTERM);
  int status = 0;
  ::waitpid(child, &status, 0);
  CHECK(WIFSIGNALED(status));
  CHECK(staging_folders(folder) == std::vector<std::string>{live});
  CHECK(fs::is_empty(folder));
  fs::remove_all(folder.parent_path() / live);
}

TEST_CASE("progress: runs longer than the threshold show the share done and the time left on stderr") {
  std::string text = kVanDerPol;  // 2·10^6 steps, the last one kept
  const std::string times = "end = 2.0\noutput = [1.0, 2.0]";
  text.replace(text.find(times), times.size(), "end = 2e3\noutput = [2e3]");
  text.replace(text.find("step = 0.01"), 11, "step = 1e-3\nmax_steps = 10000000");
  const fs::path simulate_config = write_config("progress.toml", text);
  std::string quick = text;  // 2·10^5 steps: well under a second, sanitizers and a busy machine included
  quick.replace(quick.find("end = 2e3\noutput = [2e3]"), 24, "end = 2e2\noutput = [2e2]");
  CHECK(run("simulate " + write_config("quick.toml", quick).string()).err.find("% (t = ") == std::string::npos);
  std::string gradient_text = long_run("progress", "0.5");  // 2·10^5 steps, reversed with 10 slots
  gradient_text += "[objective]\nterminal = \"x\"\n[gradient]\nmode = \"adjoint\"\n"
                   "[checkpointing]\nschedule = \"revolve\"\nslots = 10\n";
  const fs::path gradient_config = write_config("progress_gradient.toml", gradient_text);
  ::setenv("BACKSWEEP_PROGRESS", "0.01", 1);  // from 10 ms on, every millisecond
  const CliRun simulated = run("simulate " + simulate_config.string());
  const CliRun gradient = run("gradient " + gradient_config.string());
  ::unsetenv("BACKSWEEP_PROGRESS");
  CHECK(simulated.exit_code == 0);
  CHECK(simulated.err.find("simulate: ") != std::string::npos);
  CHECK(simulated.err.find("% (t = ") != std::string::npos);
  CHECK(simulated.err.find(" s left") != std::string::npos);
  CHECK(simulated.out.find("%") == std::string::npos);  // not among the results
  CHECK(gradient.exit_code == 0);
  CHECK(gradient.err.find("gradient: backward sweep ") != std::string::npos);
}

TEST_CASE("out of memory is exit 1 with a message, not an abort" * doctest::skip(kAddressSanitizer)) {
  std::string text = kVanDerPol;  // every step of 10^8 kept: 2.4 GB, under a 400 MB limit
  const std::string times = "end = 2.0\noutput = [1.0, 2.0]";
  text.replace(text.find(times), times.size(), "end = 1e6");
  text.replace(text.find("step = 0.01"), 11, "step = 0.01\nmax_steps = 1000000000");
  const fs::path config = write_config("huge_run.toml", text), err = scratch() / "oom.txt";
  const std::string command = "cd " + scratch().string() + " && ulimit -v 400000 && " + BACKSWEEP_CLI +
                              " simulate " + config.string() + " > /dev/null 2> " + err.string();
  const int status = std::system(command.c_str());
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 1);
  CHECK(slurp(err).find("error: out of memory") != std::string::npos);
}

TEST_CASE("a failed run exits 1 and leaves the earlier outputs intact") {
  std::string text = kVanDerPol;
  text.replace(text.find("dir = \"vdp\""), 11, "dir = \"kept\"");
  const fs::path good = write_config("keep.toml", text);
  REQUIRE(run("simulate " + good.string()).exit_code == 0);
  const std::string before = slurp(scratch() / "kept" / "trajectory.csv");

  SUBCASE("the solve fails") {
    std::string failing_text = text;
    failing_text.replace(failing_text.find("step = 0.01"), 11, "step = 0.01\nmax_steps = 5");
    const CliRun result = run("simulate " + write_config("fail.toml", failing_text).string() + " --json");
    CHECK(result.exit_code == 1);
    CHECK(result.err.find("max_steps") != std::string::npos);
    const auto error = nlohmann::json::parse(result.out)["error"];
    CHECK(error["exit_code"] == 1);
    CHECK(error["message"].get<std::string>().find("max_steps") != std::string::npos);
  }
  SUBCASE("writing the results fails") {
    std::string changed = text;
    changed.replace(changed.find("mu = 0.5"), 8, "mu = 0.7");
    fs::remove(scratch() / "kept" / "trajectory.h5");
    fs::create_directories(scratch() / "kept" / "trajectory.h5" / "in_the_way");
    const CliRun result = run("simulate " + write_config("changed.toml", changed).string());
    CHECK(result.exit_code == 1);
    fs::remove_all(scratch() / "kept" / "trajectory.h5");
  }
  CHECK(slurp(scratch() / "kept" / "trajectory.csv") == before);
}

TEST_CASE("--help documents the config keys") {
  const CliRun result = run("simulate --help");
  CHECK(result.exit_code == 0);
  for (const char* key : {"method", "step", "rtol", "atol", "max_steps", "output_step", "dir",
                          "states", "equations", "constants"})
    CHECK(result.out.find(key) != std::string::npos);
  const CliRun version = run("--version");
  CHECK(version.exit_code == 0);
  CHECK(version.out.rfind("backsweep 0.", 0) == 0);  // on stdout, with the project's version
  const CliRun typo = run("simulat model.toml");
  CHECK(typo.exit_code == 2);
  CHECK(typo.err.find("unknown command 'simulat' (commands: simulate, gradient, fit, lyapunov, plan)") !=
        std::string::npos);
  // With --json, errors in the command line itself are a JSON object on stdout too.
  for (const char* arguments : {"simulat model.toml --json", "simulate --json --no-such-option model.toml",
                                "plan --json --steps -5 --slots 3", "simulate --json"}) {
    CAPTURE(arguments);
    const CliRun bad = run(arguments);
    CHECK(bad.exit_code == 2);
    const auto error = nlohmann::json::parse(bad.out)["error"];
    CHECK(error["exit_code"] == 2);
    CHECK(!error["message"].get<std::string>().empty());
  }
}

TEST_CASE("simulate --help names every method, built-in model and grid kernel, and the grid, backend and vtk keys") {
  const CliRun result = run("simulate --help");
  CHECK(result.exit_code == 0);
  std::vector<std::string> names;
  for (const backsweep::Method& method : backsweep::all_methods) names.emplace_back(method.name());
  for (std::string_view name : backsweep::models::builtin_model_names) names.emplace_back(name);
  for (std::string_view name : backsweep::models::grid_kernel_names) names.emplace_back(name);
  for (const char* key : {"[grid]", "shape", "extent", "boundary", "backend", "vtk", "linear_solver",
                          "out/<config", "fields", "parameter_fields", "source"})
    names.emplace_back(key);
  for (const std::string& name : names) {
    CAPTURE(name);
    CHECK(result.out.find(" " + name) != std::string::npos);
  }
  const CliRun top = run("--help");
  CHECK(top.out.find("PDEs") != std::string::npos);
}

TEST_CASE("a model defined in the config file: SIR, and Lotka-Volterra against the built-in") {
  const std::string sir = R"([model]
states     = ["S", "I", "R"]
parameters = ["beta", "gamma"]
[model.constants]
N = 1000
[model.equations]
S = "-beta*S*I/N"
I = "beta*S*I/N - gamma*I"
R = "gamma*I"
[parameters]
beta  = 0.3
gamma = 0.1
[initial]
S = "N - 1"
I = 1
R = 0
[time]
end = 60
output_step = 10
[solver]
method = "dopri5"
rtol = 1e-10
atol = 1e-10
[output]
dir = "sir"
)";
  const CliRun result = run("simulate " + write_config("sir.toml", sir).string() + " --json");
  CAPTURE(result.err);
  REQUIRE(result.exit_code == 0);
  const auto json = nlohmann::json::parse(result.out);
  const std::vector<double> S = json["states"]["S"], I = json["states"]["I"],
                            R = json["states"]["R"];
  REQUIRE(S.size() == 7);
  for (std::size_t k = 0; k < S.size(); ++k)  // the population is conserved
    CHECK(S[k] + I[k] + R[k] == doctest::Approx(1000.0).epsilon(1e-12));
  CHECK(S[0] == 999.0);
  CHECK(S.back() < 500.0);  // R0 = 3: most are infected by t = 60
  CHECK(slurp(scratch() / "sir" / "trajectory.csv").rfind("time,S,I,R\n", 0) == 0);

  // The same equations as the built-in model give the same trajectory to the last bit.
  const std::string tail = "[time]\nend = 3\noutput = [1, 2, 3]\n[solver]\nmethod = \"tsit5\"\n";
  const CliRun builtin = run("simulate --json " +
                             write_config("lv_builtin.toml", "[model]\nname = \"lotka_volterra\"\n" + tail).string());
  const CliRun defined = run(
      "simulate --json " +
      write_config("lv_defined.toml",
                   "[model]\nstates = [\"x\", \"y\"]\nparameters = [\"alpha\", \"beta\", \"gamma\", \"delta\"]\n"
                   "[model.equations]\nx = \"alpha*x - beta*x*y\"\ny = \"delta*x*y - gamma*y\"\n"
                   "[parameters]\nalpha = 1.5\nbeta = 1\ngamma = 3\ndelta = 1\n[initial]\nx = 1\ny = 1\n" + tail)
          .string());
  REQUIRE(builtin.exit_code == 0);
  REQUIRE(defined.exit_code == 0);
  // The same trajectory (the stiffness probe's estimate differs in rounding: VJPs by
  // reverse mode and by hand).
  nlohmann::json from_defined = nlohmann::json::parse(defined.out), from_builtin = nlohmann::json::parse(builtin.out);
  CHECK(std::abs(from_defined["stiffness"]["ratio"].get<double>() / from_builtin["stiffness"]["ratio"].get<double>() -
                 1.0) < 1e-12);
  from_defined.erase("stiffness");
  from_builtin.erase("stiffness");
  CHECK(from_defined == from_builtin);

  // A bad equation: exit 2, with the column inside the expression.
  std::string bad = sir;
  bad.replace(bad.find("R = \"gamma*I\""), 13, "R = \"gamma*J\"");
  const CliRun failed = run("simulate " + write_config("bad_sir.toml", bad).string());
  CHECK(failed.exit_code == 2);
  CHECK(failed.err.find("bad_sir.toml:9:12: key 'model.equations.R': unknown name 'J'") !=
        std::string::npos);
}

TEST_CASE("simulate on a grid: the fields' ranges in JSON, a VTK series of the states") {
  std::string config = slurp(BACKSWEEP_SOURCE_DIR "/examples/gray_scott.toml");
  config.replace(config.find("end    = 200.0"), 14, "end    = 20.0");
  config.replace(config.find("output = [50.0, 100.0, 150.0]"), 29, "output = [5.0, 10.0, 20.0]");
  config.replace(config.find("dir = \"out/gray_scott\""), 22, "dir = \"gs\"");
  const CliRun result = run("simulate " + write_config("gs.toml", config).string() + " --json");
  REQUIRE(result.exit_code == 0);
  const auto json = nlohmann::json::parse(result.out);
  CHECK(json["times"] == std::vector<double>{0.0, 5.0, 10.0, 20.0});
  CHECK(json["fields"]["v"]["final_max"].get<double>() > 0.1);
  CHECK(json["fields"]["u"]["final_max"].get<double>() <= 1.0);
  const std::string pvd = slurp(scratch() / "gs" / "states.pvd");
  for (const char* entry : {"timestep=\"5\" file=\"states/states_1.vti\"", "timestep=\"20\" file=\"states/states_3.vti\""})
    CHECK(pvd.find(entry) != std::string::npos);
  CHECK(fs::file_size(scratch() / "gs" / "states" / "states_3.vti") > 1000);
  CHECK(!fs::exists(scratch() / "gs" / "trajectory.csv"));  // no CSV of 8192 columns
  const hid_t file = H5Fopen((scratch() / "gs" / "trajectory.h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  REQUIRE(file >= 0);
  const hid_t set = H5Dopen2(file, "/fields/v", H5P_DEFAULT);
  REQUIRE(set >= 0);
  const hid_t space = H5Dget_space(set);
  hsize_t dims[3] = {0, 0, 0};
  CHECK(H5Sget_simple_extent_ndims(space) == 3);
  H5Sget_simple_extent_dims(space, dims, nullptr);
  CHECK(dims[0] == 4);
  CHECK(dims[1] == 64);
  CHECK(dims[2] == 64);
  H5Sclose(space);
  H5Dclose(set);
  H5Fclose(file);
}

namespace {

// Every value of an HDF5 dataset of doubles.
std::vector<double> read_doubles(const fs::path& path, const char* dataset) {
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  REQUIRE(file >= 0);
  std::vector<double> values = read_dataset(file, dataset);
  H5Fclose(file);
  return values;
}

// The Gray-Scott example to t = end, writing states as VTK into `dir`.
std::string gray_scott(const std::string& end, const std::string& dir, const std::string& initial = "") {
  std::string config = slurp(BACKSWEEP_SOURCE_DIR "/examples/gray_scott.toml");
  config.replace(config.find("end    = 200.0"), 14, "end    = " + end);
  config.replace(config.find("output = [50.0, 100.0, 150.0]"), 29, "output = [" + end + "]");
  config.replace(config.find("dir = \"out/gray_scott\""), 22, "dir = \"" + dir + "\"");
  if (!initial.empty()) {
    const std::size_t from = config.find("v = \"if("), to = config.find("[time]");
    config.replace(from, to - from, initial + "\n\n");
  }
  return config;
}

}  // namespace

TEST_CASE("initial fields from VTK ImageData: a run goes on from another's last state; bad files exit 2 by key") {
  REQUIRE(run("simulate " + write_config("gs_first.toml", gray_scott("10.0", "first")).string()).exit_code == 0);
  const std::string from_vti = "u = { file = \"first/states/states_1.vti\" }\n"
                               "v = { file = \"first/states/states_1.vti\", array = \"v\" }";
  const CliRun next = run("simulate " + write_config("gs_next.toml", gray_scott("5.0", "next", from_vti)).string());
  CAPTURE(next.err);
  REQUIRE(next.exit_code == 0);
  // The first run's last state, read back from its .vti: the next run's first, bitwise.
  const std::vector<double> last = read_doubles(scratch() / "first" / "trajectory.h5", "/fields/u"),
                            first = read_doubles(scratch() / "next" / "trajectory.h5", "/fields/u");
  REQUIRE(last.size() == 2 * 4096);
  CHECK(std::vector<double>(last.begin() + 4096, last.end()) == std::vector<double>(first.begin(), first.begin() + 4096));

  std::string small = gray_scott("1.0", "small");
  small.replace(small.find("shape    = [64, 64]"), 19, "shape    = [32, 48]");
  REQUIRE(run("simulate " + write_config("gs_small.toml", small).string()).exit_code == 0);
  std::ofstream(scratch() / "not_an_image.vti") << "<VTKFile type=\"PolyData\">\n";
  const std::string whole = slurp(scratch() / "first" / "states" / "states_1.vti");
  std::ofstream(scratch() / "truncated.vti") << whole.substr(0, whole.size() / 2);
  struct Case {
    std::string source, key, says;
  };
  for (const Case& c :
       {Case{"{ file = \"small/states/states_1.vti\" }", "initial.u", "has shape [32, 48]; the grid's is [64, 64]"},
        Case{"{ file = \"first/states/states_1.vti\", array = \"w\" }", "initial.u", "no point array 'w' in"},
        Case{"{ file = \"first/states/states_1.vti\", dataset = \"u\" }", "initial.u.dataset", "names its point array"},
        Case{"{ file = \"not_an_image.vti\" }", "initial.u", "as VTK ImageData"},
        Case{"{ file = \"truncated.vti\" }", "initial.u", "as VTK ImageData"}}) {
    CAPTURE(c.says);
    const std::string config = gray_scott("5.0", "bad", "u = " + c.source + "\nv = 0");
    const CliRun bad = run("simulate " + write_config("gs_bad.toml", config).string() + " --json");
    CHECK(bad.exit_code == 2);
    const auto error = nlohmann::json::parse(bad.out)["error"];
    CHECK(error["key"] == c.key);
    CHECK(error["line"].get<int>() > 0);
    CAPTURE(bad.out);
    CHECK(error["message"].get<std::string>().find(c.says) != std::string::npos);
  }
  CHECK(!fs::exists(scratch() / "bad"));
}

TEST_CASE("an explicit step beyond the stability limit is refused before the run, near it said") {
  // 3-D heat, k = 1.5, 12^3 points of spacing 1/13: rho(J) = 2997, so rk4 (beta 2.79) is
  // stable up to a step of 9.3e-4.
  const auto heat = [](const std::string& name, double step) {
    std::ostringstream text;
    text << "[grid]\nshape = [12, 12, 12]\nextent = [1.0, 1.0, 1.0]\nboundary = \"dirichlet\"\n"
         << "[model]\nfields = [\"u\"]\nparameter_fields = [\"k\"]\n[model.equations]\nu = \"div_grad(k, u)\"\n"
         << "[parameters]\nk = 1.5\n[initial]\nu = \"sin(3*x) * y * z\"\n[time]\nend = 0.03\n"
         << "[objective]\nterminal = \"u[6, 6, 6]\"\n[solver]\nmethod = \"rk4\"\nkernels = \"interpreted\"\nstep = " << step
         << "\n[output]\ndir = \"" << name << "\"\n";
    return write_config(name + ".toml", text.str()).string();
  };
  const std::string unstable = heat("unstable_heat", 1.5e-3);
  for (const char* command : {"simulate ", "gradient "}) {
    CAPTURE(command);
    const CliRun refused = run(command + unstable);
    CHECK(refused.exit_code == 2);
    CHECK(refused.err.find("unstable_heat.toml:21:8: key 'solver.step': h rho(J) / beta = 1.5") != std::string::npos);
    CHECK(refused.err.find("the run would blow up; take step < 0.00086") != std::string::npos);
    CHECK_FALSE(fs::exists(scratch() / "unstable_heat"));
  }
  const CliRun near = run("simulate " + heat("near_heat", 8.9e-4));
  CHECK(near.exit_code == 0);
  CHECK(near.err.find("warning: ") != std::string::npos);
  CHECK(near.err.find("solver.step = 0.00089 is near the explicit method's stability limit: h rho(J) / beta = 0.9") !=
        std::string::npos);
  const CliRun stable = run("gradient " + heat("stable_heat", 4e-4));
  CHECK(stable.exit_code == 0);
  CHECK(stable.err.find("stability limit") == std::string::npos);
  // The steps taken are checked, not solver.step: here one step of 1e-3 (h lambda = 1).
  const CliRun short_run = run("simulate " + write_config("short.toml", "[model]\nstates = [\"x\"]\n[model.equations]\n"
                                                                       "x = \"-1000*x\"\n[initial]\nx = 1.0\n[time]\n"
                                                                       "end = 0.001\n[solver]\nmethod = \"rk4\"\n"
                                                                       "step = 0.01\n[output]\ndir = \"short\"\n")
                                                          .string());
  CHECK(short_run.exit_code == 0);
  CHECK(short_run.err.find("stability limit") == std::string::npos);
}
