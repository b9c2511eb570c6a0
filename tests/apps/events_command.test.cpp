// [[events]] through the real program: doses at given times in simulate (the trajectory's
// jump, --json and trajectory.h5 list the times taken), gradient (adjoint = tangent
// through the jumps, listed in gradient.h5), and every refusal by file, line and key (the
// pharmacokinetic fit example runs with the other fits, tests/apps/fit_command.test.cpp).
#include <cmath>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <string>

#include <doctest/doctest.h>
#include <hdf5.h>
#include <nlohmann/json.hpp>

#include "tests/apps/run_cli.hpp"
#include "tests/h5_read.hpp"

namespace {

const std::filesystem::path& scratch() {
  static const std::filesystem::path dir = scratch_folder("events_command");
  return dir;
}

CliRun run(const std::string& command, const std::string& name, const std::string& text) {
  std::ofstream(scratch() / name) << text;
  return run_cli(command + " --json " + (scratch() / name).string(), scratch());
}

// One compartment with a first-order absorption: doses of 100 at 2, 5 and 8, each F*dose
// into the gut.
std::string adaptive(const std::string& method) { return "method = \"" + method + "\"\nrtol = 1e-10\natol = 1e-12\n"; }

std::string pk(const std::string& events = "", const std::string& extra = "", const std::string& solver = adaptive("dopri5")) {
  return "[model]\nstates = [\"gut\", \"central\"]\nparameters = [\"ka\", \"ke\", \"F\"]\n"
         "[model.equations]\ngut = \"-ka*gut\"\ncentral = \"ka*gut - ke*central\"\n"
         "[parameters]\nka = 1.5\nke = 0.3\nF = 0.7\n[initial]\ngut = 0\ncentral = 0\n"
         "[time]\nend = 10.0\noutput = [1.0, 5.0, 10.0]\n"
         "[solver]\n" + solver +
         (events.empty() ? "[[events]]\nname = \"dose\"\nat = [2.0, 5.0, 8.0]\nset = { gut = \"gut + F*100\" }\n"
                         : events) +
         extra + "[output]\ndir = \"out/pk\"\n";
}

// /events/dose of a result file of the run.
std::vector<double> dose_times(const std::string& file_name) {
  const hid_t file = H5Fopen((scratch() / "out/pk" / file_name).c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  REQUIRE(file >= 0);
  const hid_t events = H5Gopen2(file, "events", H5P_DEFAULT);
  const std::vector<double> times = events >= 0 ? read_dataset(events, "dose") : std::vector<double>{};
  if (events >= 0) H5Gclose(events);
  H5Fclose(file);
  return times;
}

// Two --json gradients agree, parameter by parameter, to `tolerance` relative to the first.
void check_same_gradient(const nlohmann::json& a, const nlohmann::json& b, std::initializer_list<const char*> names,
                         double tolerance) {
  for (const char* p : names) {
    CAPTURE(p);
    const double ga = a["gradient"]["parameters"][p].get<double>(), gb = b["gradient"]["parameters"][p].get<double>();
    CHECK(std::abs(ga - gb) <= tolerance * std::abs(ga));
  }
}

}  // namespace

TEST_CASE("simulate takes the doses: the state jumps, and the outputs list the times taken") {
  const CliRun r = run("simulate", "simulate.toml", pk());
  CAPTURE(r.err);
  REQUIRE(r.exit_code == 0);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  CHECK(j["events"] == nlohmann::json::parse(R"([{"name": "dose", "times": [2.0, 5.0, 8.0]}])"));
  // Before the first dose nothing is there; at t = 5 (a dose time) the gut holds the dose
  // given then on top of what is left of the one at 2: 70 + 70 e^{-4.5}.
  CHECK(j["states"]["gut"][1] == 0.0);
  CHECK(std::abs(j["states"]["gut"][2].get<double>() - (70.0 + 70.0 * std::exp(-4.5))) < 1e-6);
  CHECK(dose_times("trajectory.h5") == std::vector<double>{2.0, 5.0, 8.0});
}

TEST_CASE("gradient through the doses: the adjoint equals the tangent, for an explicit and an implicit method") {
  for (const std::string method : {"dopri5", "sdirk4"}) {
    CAPTURE(method);
    const std::string objective = "[objective]\nterminal = \"central\"\nintegral = \"central^2\"\n";
    const CliRun adjoint = run("gradient", "adjoint.toml", pk("", objective + "[gradient]\nmode = \"adjoint\"\n", adaptive(method)));
    const CliRun tangent = run("gradient", "tangent.toml", pk("", objective + "[gradient]\nmode = \"tangent\"\n", adaptive(method)));
    CAPTURE(adjoint.err);
    REQUIRE(adjoint.exit_code == 0);
    REQUIRE(tangent.exit_code == 0);
    const nlohmann::json a = nlohmann::json::parse(adjoint.out), t = nlohmann::json::parse(tangent.out);
    check_same_gradient(a, t, {"ka", "ke", "F"}, 1e-10);
    CHECK(std::abs(a["gradient"]["parameters"]["F"].get<double>()) > 1.0);  // F enters only through the jumps
    CHECK(a["events"][0]["times"].size() == 3);
  }
  CHECK(dose_times("gradient.h5") == std::vector<double>{2.0, 5.0, 8.0});
  // CVODES restarts at each dose: its continuous adjoint agrees with the exact discrete one
  // to its tolerances.
  const std::string objective = "[objective]\nterminal = \"central\"\nintegral = \"central^2\"\n[gradient]\nmode = \"adjoint\"\n";
  const CliRun ours = run("gradient", "ours.toml", pk("", objective, adaptive("dopri5")));
  const CliRun cvodes = run("gradient", "cvodes.toml", pk("", objective, adaptive("cvodes_bdf")));
  CAPTURE(cvodes.err);
  REQUIRE(cvodes.exit_code == 0);
  const nlohmann::json a = nlohmann::json::parse(ours.out), c = nlohmann::json::parse(cvodes.out);
  check_same_gradient(a, c, {"ka", "ke", "F"}, 1e-5);
  CHECK(c["events"][0]["times"].size() == 3);
}

TEST_CASE("the stiff example: esdirk3's adjoint through three doses equals its tangent") {
  std::ifstream in(std::string(BACKSWEEP_SOURCE_DIR) + "/examples/binding_doses_stiff.toml");
  std::ofstream(scratch() / "stiff.toml") << in.rdbuf();
  const CliRun adjoint = run_cli("gradient --json stiff.toml", scratch());
  const CliRun tangent = run_cli("gradient --json --set gradient.mode=tangent stiff.toml", scratch());
  CAPTURE(adjoint.err);
  CAPTURE(tangent.err);
  REQUIRE(adjoint.exit_code == 0);
  REQUIRE(tangent.exit_code == 0);
  const nlohmann::json a = nlohmann::json::parse(adjoint.out), t = nlohmann::json::parse(tangent.out);
  CHECK(a["diagnostics"]["method"] == "esdirk3");
  CHECK(t["diagnostics"]["mode"] == "tangent");
  CHECK(a["events"][0]["times"] == nlohmann::json::parse("[1.0, 25.0, 49.0]"));
  check_same_gradient(a, t, {"ke", "kon", "koff", "kint", "dose"}, 1e-10);
  CHECK(a["gradient"]["parameters"]["dose"].get<double>() > 0.0);  // more drug, more exposure
}

TEST_CASE("the bouncing ball example: the gradient by r, H and g is the closed form's, through the located bounce") {
  std::ifstream in(std::string(BACKSWEEP_SOURCE_DIR) + "/examples/bouncing_ball.toml");
  std::ofstream(scratch() / "ball.toml") << in.rdbuf();
  const CliRun adjoint = run_cli("gradient --json ball.toml", scratch());
  const CliRun tangent = run_cli("gradient --json --set gradient.mode=tangent ball.toml", scratch());
  CAPTURE(adjoint.err);
  REQUIRE(adjoint.exit_code == 0);
  REQUIRE(tangent.exit_code == 0);
  const nlohmann::json a = nlohmann::json::parse(adjoint.out), t = nlohmann::json::parse(tangent.out);
  const double g = 9.81, e = 0.8, H = 2.0, T = 1.5, t1 = std::sqrt(2 * H / g), s = T - t1;
  const double dx_dt1 = e * g * s - e * g * t1 + g * s;
  const double closed[] = {dx_dt1 * (-t1 / (2 * g)) + e * t1 * s - 0.5 * s * s, g * t1 * s, dx_dt1 / (g * t1)};
  const char* names[] = {"g", "r", "H"};
  for (int k = 0; k < 3; ++k) {
    CAPTURE(names[k]);
    const double ga = a["gradient"]["parameters"][names[k]].get<double>();
    CHECK(std::abs(ga - closed[k]) <= 1e-10 * std::abs(closed[k]));
    CHECK(std::abs(ga - t["gradient"]["parameters"][names[k]].get<double>()) <= 1e-10 * std::abs(closed[k]));
  }
  REQUIRE(a["events"][0]["times"].size() == 1);
  CHECK(std::abs(a["events"][0]["times"][0].get<double>() - t1) < 1e-14);
}

TEST_CASE("a lag time's gradient is exact through the program; a condition that never crosses is said, not an error") {
  const std::string lag = "[[events]]\nname = \"dose\"\nat = \"2 + F\"\nset = { gut = \"gut + 100\" }\n"
                          "[[events]]\nname = \"never\"\nwhen = \"central + 1\"\ndirection = \"down\"\nset = { gut = \"0\" }\n";
  const std::string objective = "[objective]\nintegral = \"central^2\"\n";
  for (const std::string& solver : {std::string("method = \"rk4\"\nstep = 0.05\n"), adaptive("esdirk3")}) {
    CAPTURE(solver);
    const CliRun adjoint = run("gradient", "lag.toml", pk(lag, objective + "[gradient]\nmode = \"adjoint\"\n", solver));
    const CliRun tangent = run("gradient", "lag_t.toml", pk(lag, objective + "[gradient]\nmode = \"tangent\"\n", solver));
    CAPTURE(adjoint.err);
    REQUIRE(adjoint.exit_code == 0);
    REQUIRE(tangent.exit_code == 0);
    const nlohmann::json a = nlohmann::json::parse(adjoint.out), t = nlohmann::json::parse(tangent.out);
    check_same_gradient(a, t, {"ka", "ke", "F"}, 1e-10);
    CHECK(std::abs(a["gradient"]["parameters"]["F"].get<double>()) > 1.0);  // F moves the dose only
    REQUIRE(a["events"].size() == 2);
    REQUIRE(a["events"][0]["times"].size() == 1);
    CHECK(std::abs(a["events"][0]["times"][0].get<double>() - 2.7) < 1e-15);
    CHECK(a["events"][1] == nlohmann::json::parse(R"({"name": "never", "times": []})"));
    CHECK(adjoint.err.find("event 'never' never happened") != std::string::npos);
  }
}

TEST_CASE("a ball coming to rest is stopped with the event, the step and the time (exit 1)") {
  std::ifstream in(std::string(BACKSWEEP_SOURCE_DIR) + "/examples/bouncing_ball.toml");
  std::ofstream(scratch() / "zeno.toml") << in.rdbuf();
  const CliRun r = run_cli("simulate --set parameters.r=0.5 --set time.end=5 --set solver.step=0.5 zeno.toml", scratch());
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("event 'bounce' chatters (Zeno)") != std::string::npos);
  CHECK(r.err.find("in the step from t = ") != std::string::npos);
}

TEST_CASE("events that cannot run are refused by file, line and key") {
  struct Bad {
    std::string events, extra, solver, key, says;
  };
  const std::string at = "[[events]]\nname = \"dose\"\nat = ";
  const Bad cases[] = {
      {at + "2.0\nset = { guts = \"1\" }\n", "", adaptive("dopri5"), "events.set.guts", "unknown state"},
      {at + "2.0\nset = { gut = \"gut + dos\" }\n", "", adaptive("dopri5"), "events.set.gut", "dos"},
      {at + "-1.0\nset = { gut = \"1\" }\n", "", adaptive("dopri5"), "events.at", "never happens"},
      {at + "[2.0, 50.0]\nset = { gut = \"1\" }\n", "", adaptive("dopri5"), "events.at", "after time.end"},
      {at + "{ start = 11.0, period = 1.0, count = 3 }\nset = { gut = \"1\" }\n", "", adaptive("dopri5"), "events.at.start", "after time.end"},
      {at + "2.0\nterminal = true\nset = { gut = \"1\" }\n", "", adaptive("dopri5"), "events.terminal", "goes with when"},
      {at + "{ start = 1.0, period = 0.0, count = 3 }\nset = { gut = \"1\" }\n", "", adaptive("dopri5"), "events.at.period", "> 0"},
      {at + "\"tlag\"\nset = { gut = \"1\" }\n", "", adaptive("dopri5"), "events.at", "tlag"},
      {at + "\"central + 1\"\nset = { gut = \"1\" }\n", "", adaptive("dopri5"), "events.at", "central"},
      {at + "\"ka*100\"\nset = { gut = \"1\" }\n", "", adaptive("dopri5"), "events.at", "outside (time.start, time.end]"},
      {at + "2.0\nwhen = \"central - 1\"\nset = { gut = \"1\" }\n", "", adaptive("dopri5"), "events.when", "not both"},
      {"[[events]]\nname = \"low\"\nwhen = \"central - 1\"\nset = { gut = \"1\" }\n", "", adaptive("dopri5"),
       "events.direction", "is required with when"},
      {"[[events]]\nname = \"low\"\nwhen = \"central - 1\"\ndirection = \"sideways\"\nset = { gut = \"1\" }\n", "",
       adaptive("dopri5"), "events.direction", "\"up\", \"down\" or \"either\""},
      {"[[events]]\nname = \"low\"\nwhen = \"central - cmin\"\ndirection = \"up\"\nset = { gut = \"1\" }\n", "",
       adaptive("dopri5"), "events.when", "cmin"},
      {at + "2.0\n", "", adaptive("dopri5"), "events.set", "is required"},
      {at + "2.0\nset = { gut = \"1\" }\n" + at + "3.0\nset = { gut = \"2\" }\n", "", adaptive("dopri5"), "events.name", "another event"},
      {at + "\"2 + F\"\nset = { gut = \"1\" }\n", "", adaptive("cvodes_bdf"), "events.at", "not by CVODES"},
      {at + "2.0\nset = { gut = \"1\" }\n", "[gradient]\nmode = \"shadowing\"\n[objective]\nintegral = \"central\"\n",
       "method = \"rk4\"\nstep = 0.01\n", "events", "shadowing"},
  };
  for (const Bad& bad : cases) {
    CAPTURE(bad.events);
    const CliRun r = run("gradient", "bad.toml", pk(bad.events, bad.extra.empty() ? "[objective]\nterminal = \"central\"\n" : bad.extra, bad.solver));
    CAPTURE(r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("bad.toml:") != std::string::npos);
    CHECK(r.err.find("key '" + bad.key + "'") != std::string::npos);
    CHECK(r.err.find(bad.says) != std::string::npos);
  }
  const CliRun lyapunov = run("lyapunov", "lyapunov.toml", pk());
  CHECK(lyapunov.exit_code == 2);
  CHECK(lyapunov.err.find("key 'events'") != std::string::npos);
}
