// The growth monitor and the stiffness probe in every gradient path, through the real
// program on configs written to disk: a chaotic ODE, a stiff one under an explicit method
// and a stable one, each in adjoint and tangent mode on our steppers and on CVODES; an
// ensemble and a fit; explicit runs whose fixed step turns unstable after the start.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <doctest/doctest.h>
#include <hdf5.h>
#include <nlohmann/json.hpp>

#include "tests/apps/run_cli.hpp"
#include "tests/h5_read.hpp"

namespace {

const std::filesystem::path& scratch() {
  static const std::filesystem::path dir = scratch_folder("monitor_verdicts");
  return dir;
}

std::string write_config(const std::string& name, const std::string& text) {
  const std::filesystem::path path = scratch() / name;
  std::ofstream(path) << text;
  return path.string();
}

// The method's lines: a fixed or adaptive explicit step, or CVODES.
std::string solver(const std::string& method, const std::string& explicit_step) {
  return "[solver]\nmethod = \"" + method + "\"\n" +
         (method.starts_with("cvodes") ? "rtol = 1e-8\natol = 1e-10\n" : explicit_step + "\n");
}

std::string lorenz(const std::string& method, const std::string& mode) {
  return "[model]\nname = \"lorenz63\"\n[initial]\nx = 1.0\ny = 1.0\nz = 1.0\n[time]\nend = 60.0\n" +
         solver(method, "step = 0.01") + "[objective]\nintegral = \"z/60\"\n[gradient]\nmode = \"" + mode +
         "\"\n[output]\ndir = \"out/lorenz\"\n";
}

std::string robertson(const std::string& method, const std::string& mode) {
  return "[model]\nname = \"robertson\"\n[time]\nend = 40.0\n" + solver(method, "rtol = 1e-8\natol = 1e-12") +
         "[objective]\nterminal = \"y1\"\n[gradient]\nmode = \"" + mode + "\"\n[output]\ndir = \"out/robertson\"\n";
}

std::string damped_oscillator(const std::string& method, const std::string& mode) {
  return "[model]\nstates = [\"x\", \"v\"]\nparameters = [\"c\"]\n[model.equations]\nx = \"v\"\nv = \"-x - c*v\"\n"
         "[parameters]\nc = 0.5\n[initial]\nx = 1.0\nv = 0.0\n[time]\nend = 20.0\n" +
         solver(method, "step = 0.01") + "[objective]\nterminal = \"x\"\n[gradient]\nmode = \"" + mode +
         "\"\n[output]\ndir = \"out/damped\"\n";
}

}  // namespace

TEST_CASE("every gradient path gives the monitor's verdict: chaotic, stiff under an explicit method, stable") {
  struct Case {
    const char* system;
    std::string (*config)(const std::string&, const std::string&);
    const char* method;
    const char* verdict;
  };
  const Case cases[] = {
      {"lorenz", lorenz, "rk4", "chaotic_divergence"},
      {"lorenz", lorenz, "cvodes_bdf", "chaotic_divergence"},
      {"robertson", robertson, "dopri5", "stiff"},
      {"robertson", robertson, "cvodes_bdf", "stable"},  // BDF is the method for it
      {"damped", damped_oscillator, "rk4", "stable"},
      {"damped", damped_oscillator, "cvodes_bdf", "stable"},
  };
  for (const Case& c : cases)
    for (const std::string mode : {"adjoint", "tangent"}) {
      CAPTURE(c.system);
      CAPTURE(c.method);
      CAPTURE(mode);
      const std::string path = write_config(std::string(c.system) + ".toml", c.config(c.method, mode));
      const CliRun run = run_cli("gradient --json " + path, scratch());
      CAPTURE(run.err);
      REQUIRE(run.exit_code == 0);
      const nlohmann::json diagnostics = nlohmann::json::parse(run.out)["diagnostics"];
      const nlohmann::json& monitor = diagnostics["monitor"];
      CHECK(monitor["verdict"] == c.verdict);
      CHECK(monitor["watches"] == mode);
      const std::string warning = "warning: the " + mode + " monitor says " + c.verdict;
      CHECK((run.err.find(warning) != std::string::npos) == (std::string(c.verdict) != "stable"));
      if (std::string(c.verdict) == "chaotic_divergence") {  // Lorenz-63's leading exponent, 0.906
        CHECK(std::abs(monitor["growth_rate"].get<double>() / 0.906 - 1.0) < 0.25);
        CHECK(run.err.find("gradient.mode = \"shadowing\"") != std::string::npos);  // the remedy's keys
      }
      if (std::string(c.method) == "dopri5") CHECK(diagnostics["stiffness"]["stiff"] == true);

      // The same verdict in gradient.h5.
      const std::string h5 = (scratch() / "out" / c.system / "gradient.h5").string();
      const hid_t file = H5Fopen(h5.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
      REQUIRE(file >= 0);
      const hid_t group = H5Gopen2(file, "monitor", H5P_DEFAULT);
      REQUIRE(group >= 0);
      CHECK(read_text_attribute(group, "verdict") == c.verdict);
      H5Gclose(group);
      H5Fclose(file);
    }
}

TEST_CASE("an ensemble in tangent mode gives each member's verdict and their counts") {
  const std::string path = write_config(
      "ensemble.toml", "[model]\nname = \"lorenz63\"\n[initial]\nx = 1.0\ny = 1.0\nz = 1.0\n[time]\nend = 30.0\n"
                       "[solver]\nmethod = \"rk4\"\nstep = 0.01\n[objective]\nintegral = \"z/30\"\n"
                       "[gradient]\nmode = \"tangent\"\n[ensemble]\nsamples = 4\nseed = 1\n"
                       "[ensemble.ranges]\nrho = [0.5, 40.0]\n[output]\ndir = \"out/ensemble\"\n");
  const CliRun run = run_cli("gradient --json " + path, scratch());
  CAPTURE(run.err);
  REQUIRE(run.exit_code == 0);
  const nlohmann::json out = nlohmann::json::parse(run.out);
  std::size_t chaotic = 0, stable = 0, not_stable = 0;
  for (const auto& member : out["members"]) {
    const double rho = member["values"]["rho"].get<double>();
    CAPTURE(rho);
    if (rho < 1.0) CHECK(member["verdict"] == "stable");  // the origin attracts
    if (rho > 30.0) CHECK(member["verdict"] == "chaotic_divergence");
    chaotic += member["verdict"] == "chaotic_divergence";
    stable += member["verdict"] == "stable";
    not_stable += member["verdict"] != "stable";
  }
  const nlohmann::json& counts = out["ensemble"]["verdicts"];
  CHECK(counts.value("chaotic_divergence", std::size_t(0)) == chaotic);
  CHECK(counts.value("stable", std::size_t(0)) == stable);
  CHECK((run.err.find("warning: the growth monitor's verdicts over 4 members") != std::string::npos) ==
        (not_stable > 0));
}

TEST_CASE("a fit reports each experiment's verdict at the fit, in --json and fit.h5") {
  const std::filesystem::path data = std::filesystem::path(BACKSWEEP_SOURCE_DIR) / "examples/data/sir.csv";
  std::ifstream example(std::filesystem::path(BACKSWEEP_SOURCE_DIR) / "examples/sir_fit.toml");
  std::string text((std::istreambuf_iterator<char>(example)), {});
  text.replace(text.find("\"data/sir.csv\""), 14, "\"" + data.string() + "\"");
  text.replace(text.find("starts = 5"), 10, "starts = 1");
  const CliRun run = run_cli("fit --json " + write_config("sir_fit.toml", text), scratch());
  CAPTURE(run.err);
  REQUIRE(run.exit_code == 0);
  const nlohmann::json out = nlohmann::json::parse(run.out);
  const nlohmann::json& monitor = out["monitor"];
  REQUIRE(monitor.size() == 1);
  const nlohmann::json& experiment = monitor.begin().value();
  CHECK(experiment["verdict"] == "stable");
  CHECK(experiment["watches"] == out["gradient_mode"]);
  const hid_t file = H5Fopen((scratch() / "out/sir_fit/fit.h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  REQUIRE(file >= 0);
  const hid_t group = H5Gopen2(file, "monitor", H5P_DEFAULT);
  REQUIRE(group >= 0);
  CHECK(read_dataset(group, "growth_rate") == std::vector<double>{experiment["growth_rate"].get<double>()});
  H5Gclose(group);
  H5Fclose(file);
}

TEST_CASE("an explicit fixed step that turns unstable after the start fails simulate and gradient, saying so") {
  // y' = -k t y: rho(J) = k t grows from 0, past rk4's limit (2.79 / h) at t = 0.28.
  const auto config = [](const std::string& mode, const std::string& end) {
    return "[model]\nstates = [\"y\"]\nparameters = [\"k\"]\n[model.equations]\ny = \"-k*t*y\"\n[parameters]\n"
           "k = 1000.0\n[initial]\ny = 1.0\n[time]\nend = " + end + "\n[solver]\nmethod = \"rk4\"\nstep = 0.01\n"
           "[objective]\nterminal = \"y^2\"\n[gradient]\nmode = \"" + mode + "\"\n[output]\ndir = \"out/growing\"\n";
  };
  // Stable up to t = 0.2: it runs, and its outputs stay when the longer run fails.
  const CliRun short_run = run_cli("simulate " + write_config("short.toml", config("adjoint", "0.2")), scratch());
  REQUIRE(short_run.exit_code == 0);
  const std::filesystem::path trajectory = scratch() / "out/growing/trajectory.csv";
  const auto written = std::filesystem::last_write_time(trajectory);
  for (const std::string command : {"simulate", "gradient"})
    for (const std::string mode : {"adjoint", "tangent"}) {
      CAPTURE(command);
      CAPTURE(mode);
      const CliRun run = run_cli(command + " " + write_config("long.toml", config(mode, "1.0")), scratch());
      CHECK(run.exit_code == 1);
      CHECK(run.err.find("failed (unstable): the explicit method rk4 is unstable at its step 0.01: at t = ") !=
            std::string::npos);
      CHECK(run.err.find("take step < ") != std::string::npos);
      CHECK(std::filesystem::last_write_time(trajectory) == written);
    }
}

TEST_CASE("simulate says when an explicit method's steps were held by stability") {
  const CliRun run = run_cli("simulate --json " + write_config("robertson.toml", robertson("dopri5", "adjoint")),
                             scratch());
  CAPTURE(run.err);
  REQUIRE(run.exit_code == 0);
  CHECK(nlohmann::json::parse(run.out)["stiffness"]["stiff"] == true);
  CHECK(run.err.find("warning: stiff: the steps of dopri5 were held by its stability") != std::string::npos);
  const CliRun implicit = run_cli("simulate --json " + write_config("robertson.toml", robertson("sdirk4", "adjoint")),
                                  scratch());
  REQUIRE(implicit.exit_code == 0);
  CHECK(nlohmann::json::parse(implicit.out)["stiffness"].is_null());
}

TEST_CASE("tangent mode names the objective's term that was not finite, and its time") {
  const auto config = [](const std::string& objective) {
    return "[model]\nname = \"lorenz63\"\n[initial]\nx = 1.0\ny = 1.0\nz = 1.0\n[time]\nend = 1.0\n"
           "[solver]\nmethod = \"rk4\"\nstep = 0.01\n[objective]\n" + objective +
           "\n[gradient]\nmode = \"tangent\"\n[output]\ndir = \"out/term\"\n";
  };
  const CliRun terminal = run_cli("gradient --json " + write_config("terminal.toml", config("terminal = \"log(-1 - z^2)\"")),
                                  scratch());
  CHECK(terminal.exit_code == 1);
  CHECK(terminal.err.find("non-finite value in the objective's terminal term at t = 1") != std::string::npos);
  const CliRun observed = run_cli(
      "gradient --json " +
          write_config("observed.toml", config("[[objective.observation]]\ntime = 0.5\nformula = \"sqrt(-1 - x^2)\"")),
      scratch());
  CHECK(observed.exit_code == 1);
  CHECK(observed.err.find("non-finite value in the objective's observation term at t = 0.5") != std::string::npos);
}
