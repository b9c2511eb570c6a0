// `backsweep gradient` with [output] vtk = true writes the states and adjoint fields from
// the gradient's own sweeps: no second forward solve. The gradient is bitwise the one
// without VTK; the states are bitwise simulate's where the output times lie on the step
// grid; an output time off the grid gets a warning and no fields (a second solve would
// have landed on it); every checkpoint schedule, the tangent and CVODES write the same
// states.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/vtk/vti_reader.hpp"
#include "tests/apps/run_cli.hpp"

namespace fs = std::filesystem;

namespace gradient_fields_test {

fs::path scratch() { return scratch_folder("gradient_fields"); }

// Heat with a conductivity field on a 12 x 10 grid: 40 RK4 steps of 1e-4.
const std::string kHeat = R"toml([grid]
shape = [12, 10]
extent = [1.0, 1.0]
boundary = "dirichlet"
[model]
fields = ["u"]
parameter_fields = ["k"]
[model.equations]
u = "div_grad(k, u)"
[parameters]
k = "1 + 0.5*x*y"
[initial]
u = "sin(pi*x)*sin(pi*y)"
[time]
end = 4e-3
output = [1e-3, 2e-3]
[solver]
method = "rk4"
step = 1e-4
[objective]
terminal = "u[5, 4]^2"
[gradient]
mode = "adjoint"
)toml";

std::string with(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

// Runs `command` on `config` into out/<name> (with VTK when asked); its stdout and stderr.
CliRun run_config(const std::string& command, const std::string& name, const std::string& config, bool vtk) {
  std::ofstream(scratch() / (name + ".toml")) << config << "[output]\ndir = \"out/" << name << "\"\n"
                                              << (vtk ? "vtk = true\n" : "");
  const CliRun result = run_cli(command + " " + name + ".toml --json", scratch());
  REQUIRE_MESSAGE(result.exit_code == 0, result.err);
  return result;
}
nlohmann::json gradient_json(const std::string& name, const std::string& config, bool vtk) {
  return nlohmann::json::parse(run_config("gradient", name, config, vtk).out);
}

std::string slurp(const fs::path& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), {}};
}

std::vector<double> array(const std::string& name, const std::string& series, int k, const std::string& field) {
  const backsweep::ImageArray image = backsweep::read_vti_array(
      (scratch() / "out" / name / series / (series + "_" + std::to_string(k) + ".vti")).string(), field);
  REQUIRE_MESSAGE(image.problem.empty(), image.problem);
  return image.values;
}

// The objective and the gradient, bitwise (the diagnostics' timings differ).
void check_same_gradient(const nlohmann::json& a, const nlohmann::json& b) {
  CHECK(a["objective"] == b["objective"]);
  CHECK(a["gradient"] == b["gradient"]);
}

// The states of out/<name> at the four field times are simulate's, bitwise, and carry k.
void check_states_are_simulates(const std::string& name) {
  const std::string series = slurp(scratch() / "out" / name / "states.pvd");
  for (const char* time : {"timestep=\"0\"", "timestep=\"0.001\"", "timestep=\"0.002\"", "timestep=\"0.004"})
    CHECK_MESSAGE(series.find(time) != std::string::npos, name, " lacks ", time);
  for (int k = 0; k < 4; ++k) {
    CHECK(array(name, "states", k, "u") == array("simulated", "states", k, "u"));
    CHECK(array(name, "states", k, "k") == array("simulated", "states", k, "k"));
  }
}

TEST_CASE("gradient fields: states and adjoint fields from the gradient's own sweeps") {
  run_config("simulate", "simulated", kHeat, true);
  const nlohmann::json plain = gradient_json("plain", kHeat, false);
  const nlohmann::json stored = gradient_json("stored", kHeat, true);
  check_same_gradient(plain, stored);
  // The engine's count of right-hand sides is the same with VTK as without.
  CHECK(stored["diagnostics"]["rhs_evaluations"] == plain["diagnostics"]["rhs_evaluations"]);
  check_states_are_simulates("stored");
  const std::string adjoint = slurp(scratch() / "out" / "stored" / "adjoint.pvd");
  CHECK(adjoint.find("timestep=\"0.002\"") != std::string::npos);
  // lambda(t0) is dJ/du(0).
  CHECK(array("stored", "adjoint", 0, "lambda_u") == array("stored", "gradient", 0, "dJ_du(0)"));
  CHECK(array("stored", "gradient", 0, "dJ_dk").size() == 120);

  SUBCASE("revolve, recomputing: the same states and adjoint fields") {
    const std::string config = kHeat + "[checkpointing]\nschedule = \"revolve\"\nslots = 3\n";
    check_same_gradient(plain, gradient_json("revolve", config, true));
    check_states_are_simulates("revolve");
    for (int k = 0; k < 4; ++k)
      CHECK(array("revolve", "adjoint", k, "lambda_u") == array("stored", "adjoint", k, "lambda_u"));
  }
  SUBCASE("the forward tangent: the same states, no adjoint fields") {
    const std::string config = with(kHeat, "mode = \"adjoint\"", "mode = \"tangent\"");
    gradient_json("tangent", config, true);
    check_states_are_simulates("tangent");
    CHECK(!fs::exists(scratch() / "out" / "tangent" / "adjoint.pvd"));
  }
  SUBCASE("an output time off the step grid: a warning, and no fields there") {
    const std::string config = with(kHeat, "output = [1e-3, 2e-3]", "output = [1e-3, 1.05e-3]");
    const CliRun run = run_config("gradient", "off_grid", config, true);
    CHECK(run.err.find("warning: output time 0.00105 is not on the gradient's step grid") != std::string::npos);
    const std::string series = slurp(scratch() / "out" / "off_grid" / "states.pvd");
    CHECK(series.find("timestep=\"0.00105\"") == std::string::npos);
    CHECK(series.find("timestep=\"0.001\"") != std::string::npos);
    check_same_gradient(plain, nlohmann::json::parse(run.out));
  }
}

// CVODES interpolates its states to the output times; those extra stops of its forward solve
// move its gradient by rounding only (it is accurate to the tolerances anyway).
TEST_CASE("gradient fields: CVODES shows its states at the output times") {
  const std::string config = with(kHeat, "method = \"rk4\"\nstep = 1e-4", "method = \"cvodes_bdf\"\nrtol = 1e-8");
  run_config("simulate", "cvodes_simulated", config, true);
  for (const char* mode : {"adjoint", "tangent"}) {
    CAPTURE(mode);
    const std::string moded = with(config, "mode = \"adjoint\"", std::string("mode = \"") + mode + "\"");
    const nlohmann::json plain = gradient_json("cvodes_plain", moded, false),
                         fields = gradient_json("cvodes_fields", moded, true);
    CHECK(fields["objective"].get<double>() == doctest::Approx(plain["objective"].get<double>()).epsilon(1e-12));
    const double dk = plain["gradient"]["parameter_fields"]["k"]["norm"].get<double>();
    CHECK(fields["gradient"]["parameter_fields"]["k"]["norm"].get<double>() == doctest::Approx(dk).epsilon(1e-10));
    const std::string series = slurp(scratch() / "out" / "cvodes_fields" / "states.pvd");
    for (const char* time : {"timestep=\"0\"", "timestep=\"0.001\"", "timestep=\"0.002\"", "timestep=\"0.004"})
      CHECK(series.find(time) != std::string::npos);
    CHECK(array("cvodes_fields", "states", 0, "u") == array("cvodes_simulated", "states", 0, "u"));
    // Simulate takes other steps than the adjoint's checkpointed solve or the
    // sensitivities: the same to CVODES' tolerances.
    const std::vector<double> ours = array("cvodes_fields", "states", 2, "u"),
                              simulated = array("cvodes_simulated", "states", 2, "u");
    REQUIRE(ours.size() == simulated.size());
    for (std::size_t i = 0; i < ours.size(); ++i) CHECK(ours[i] == doctest::Approx(simulated[i]).epsilon(1e-5));
  }
}

}  // namespace gradient_fields_test
