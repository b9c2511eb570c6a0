#include "io/assembly/simulate_config.hpp"

#include <doctest/doctest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "io/config/config_error.hpp"
#include "io/config/config_file.hpp"

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
backend = "cpu"
[output]
dir = "results"
)";

}  // namespace

TEST_CASE("the example config loads") {
  const auto config =
      load_simulate_config(std::string(BACKSWEEP_SOURCE_DIR) + "/examples/lorenz63.toml");
  CHECK(config.model == "lorenz63");
  CHECK(config.method.name() == "dopri5");
  CHECK(config.integrate.rtol == 1e-8);
  CHECK(config.integrate.output_times.size() == 20);
  CHECK(config.integrate.output_times.back() == 2.0);
}

TEST_CASE("the example of a model defined in the file loads") {
  const auto config =
      load_simulate_config(std::string(BACKSWEEP_SOURCE_DIR) + "/examples/sir.toml");
  REQUIRE(config.expression_model);
  CHECK(config.initial_state == std::vector<double>{995.0, 5.0, 0.0});
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
      {model + time + "[solver]\nbackend = \"cuda\"\n", "solver.backend", "run on the cpu backend", 6},
      {model + time + "[solver]\nbackend = \"gpu\"\n", "solver.backend", "known: cpu, omp, cuda", 6},
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

namespace {

// An SIR model defined in the file, with a constant and initial expressions.
const std::string kSir = R"([model]
states     = ["S", "I", "R"]
parameters = ["beta", "gamma", "i0"]
[model.constants]
N = 1000
[model.equations]
S = "-beta*S*I/N"
I = "beta*S*I/N - gamma*I"
R = "gamma*I"
[parameters]
beta  = 0.3
gamma = 0.1
i0    = 2
[initial]
S = "N - i0"
I = "i0"
R = 0
[time]
end = 10
)";

// Line and column (1-based) of the first `token` in `text`.
std::pair<std::size_t, std::size_t> where_is(const std::string& text, const std::string& token) {
  const std::size_t at = text.find(token);
  REQUIRE(at != std::string::npos);
  const std::size_t line_start = text.rfind('\n', at) == std::string::npos ? 0 : text.rfind('\n', at) + 1;
  return {std::size_t(std::count(text.begin(), text.begin() + std::ptrdiff_t(at), '\n')) + 1,
          at - line_start + 1};
}

std::string with(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

}  // namespace

TEST_CASE("a model defined in the file: states, parameters, equations, constants") {
  const std::string path = write_config(kSir);
  const auto config = load_simulate_config(path);
  std::filesystem::remove(path);
  REQUIRE(config.expression_model);
  CHECK(config.model == "expression");
  CHECK(config.state_names == std::vector<std::string>{"S", "I", "R"});
  CHECK(config.parameter_names == std::vector<std::string>{"beta", "gamma", "i0"});
  REQUIRE(config.constants.size() == 1);
  CHECK(config.constants[0].value == 1000.0);
  CHECK(config.parameters == std::vector<double>{0.3, 0.1, 2.0});
  CHECK(config.initial_state == std::vector<double>{998.0, 2.0, 0.0});
  REQUIRE(config.initial_expressions.size() == 3);
  CHECK(config.initial_expressions[0]->text() == "N - i0");
  CHECK_FALSE(config.initial_expressions[2].has_value());
  CHECK(config.initial_expressions[1]->text() == "i0");
  double dydt[3];
  (*config.expression_model)(0.0, config.initial_state.data(), config.parameters.data(), dydt);
  CHECK(dydt[0] == doctest::Approx(-0.3 * 998 * 2 / 1000));
  CHECK(dydt[1] == doctest::Approx(0.3 * 998 * 2 / 1000 - 0.1 * 2));
  CHECK(dydt[2] == doctest::Approx(0.1 * 2));
}

TEST_CASE("the spec names the model and keeps its formulas; the assembly builds it and parses them") {
  const std::string path = write_config(kSir);
  const SimulateSpec spec = simulate_spec(read_config_file(path));
  std::filesystem::remove(path);
  CHECK(spec.kind == ModelKind::equations);
  CHECK(spec.method_name == "dopri5");
  REQUIRE(spec.equations.size() == 3);
  CHECK(spec.equations[0].text == "-beta*S*I/N");
  CHECK(spec.equations[0].key == "model.equations.S");
  REQUIRE(spec.initial_formulas[0]);
  CHECK(spec.initial_formulas[0]->text == "N - i0");
  const SimulateConfig config = assemble_simulate(spec);
  REQUIRE(config.expression_model);
  CHECK(config.initial_expressions[0]->text() == "N - i0");

  // A formula that does not parse is refused by the assembly at its place in the file,
  // as the reader refuses it: a spec built by other means is checked alike.
  SimulateSpec edited = spec;
  edited.equations[1].text = "gamma*J";
  try {
    assemble_simulate(edited);
    FAIL("an equation with an unknown name was built");
  } catch (const ConfigError& error) {
    CHECK(error.key() == "model.equations.I");
    CHECK(error.where().line == spec.equations[1].at.line);
    CHECK(error.where().column == spec.equations[1].at.column + 7);  // at 'J', past the quote
    CHECK(std::string(error.what()).find("unknown name 'J'") != std::string::npos);
  }
}

TEST_CASE("built-in models take constants and initial expressions too") {
  const std::string path = write_config(
      "[model]\nname = \"van_der_pol\"\n[model.constants]\nA = 1.5\n[parameters]\nmu = 2\n"
      "[initial]\ny = \"A*mu\"\n[time]\nend = 1\n");
  const auto config = load_simulate_config(path);
  std::filesystem::remove(path);
  CHECK_FALSE(config.expression_model);
  CHECK(config.initial_state == std::vector<double>{2.0, 3.0});
  CHECK(config.initial_expressions[1]->text() == "A*mu");
}

TEST_CASE("errors in a defined model name file:line:column and the key") {
  struct Case {
    std::string text, key, words, at;  // `at`: the text the error must point at
  };
  const Case cases[] = {
      {with(kSir, "gamma*I\"\nR", "gama*I\"\nR"), "model.equations.I",
       "unknown name 'gama' (known: t, S, I, R, beta, gamma, i0, N, pi, e)", "gama*I\"\nR"},
      {with(kSir, "-beta*S*I/N\"", "-beta*S*I/N +\""), "model.equations.S", "operand is missing",
       "\"\nI = "},
      {with(kSir, "R = \"gamma*I\"\n", ""), "model.equations.R", "the equation of state 'R'",
       "[model.equations]"},
      {with(kSir, "R = \"gamma*I\"\n", "R = \"gamma*I\"\nQ = \"1\"\n"), "model.equations.Q",
       "is not a state (model.states: S, I, R)", "Q ="},
      {with(kSir, "R = \"gamma*I\"", "R = 1.5"), "model.equations.R", "must be a string", "1.5"},
      {with(kSir, "[\"S\", \"I\", \"R\"]", "[\"S\", \"I\", \"S\"]"), "model.states",
       "entry 3: 'S' is declared twice", "\"S\"]"},
      {with(kSir, "\"gamma\", \"i0\"]", "\"I\", \"i0\"]"), "model.parameters",
       "entry 2: 'I' is declared twice", "\"I\", \"i0\"]"},
      {with(kSir, "\"I\", \"R\"]", "\"exp\", \"R\"]"), "model.states",
       "'exp' is the name of a built-in function", "\"exp\""},
      {with(kSir, "\"i0\"]", "\"t\"]"), "model.parameters", "'t' is the time variable", "\"t\"]"},
      {with(kSir, "\"i0\"]", "\"2x\"]"), "model.parameters", "'2x' is not a name", "\"2x\"]"},
      {with(kSir, "N = 1000", "N = 1000\nbeta = 2.5"), "model.constants.beta",
       "'beta' is declared twice", "beta = 2.5"},
      {with(kSir, "N = 1000", "pi = 3.25"), "model.constants.pi", "built-in function or constant",
       "pi = 3.25"},
      {with(kSir, "N = 1000", "N = \"big\""), "model.constants.N", "must be a number", "\"big\""},
      {with(kSir, "[\"S\", \"I\", \"R\"]", "[]"), "model.states", "at least one state", "[]"},
      {with(kSir, "[\"S\", \"I\", \"R\"]", "\"S\""), "model.states", "must be an array of strings",
       "\"S\"\n"},
      {with(kSir, "[\"S\", \"I\", \"R\"]", "[\"S\", 7, \"R\"]"), "model.states",
       "entry 2: must be a string", "7"},
      {with(kSir, "[model]\n", "[model]\nname = \"lorenz63\"\n"), "model.states",
       "give either model.name", "[\"S\""},
      {with(kSir, "gamma = 0.1\n", ""), "parameters.gamma", "is required", "[parameters]"},
      {with(kSir, "i0    = 2", "i0 = 2\ndelta = 1"), "parameters.delta",
       "unknown parameter (this model has: beta, gamma, i0)", "1\n[initial]"},
      {with(kSir, "R = 0\n", ""), "initial.R", "is required", "[initial]"},
      {with(kSir, "I = \"i0\"", "I = \"i0 + S\""), "initial.I",
       "unknown name 'S' (known: beta, gamma, i0, N, t, pi, e)", "S\"\nR = 0"},
      {with(kSir, "I = \"i0\"", "I = \"log(i0 - 2)\""), "initial.I", "evaluates to -inf",
       "\"log("},
      {with(kSir, "R = 0", "R = true"), "initial.R", "must be a number or an expression string",
       "true"},
      {with(kSir, "[model.equations]\nS = \"-beta*S*I/N\"\nI = \"beta*S*I/N - gamma*I\"\nR = \"gamma*I\"\n", ""),
       "model.equations", "is required: one equation per state", "[model]"},
      {with(kSir, "states     = [\"S\", \"I\", \"R\"]\n", ""), "model.states", "is required",
       "[model]"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.text);
    const ConfigError error = error_of(c.text);
    const std::string message = error.what();
    CAPTURE(message);
    const auto [line, column] = where_is(c.text, c.at);
    CHECK(error.key() == c.key);
    CHECK(error.where().line == line);
    CHECK(error.where().column == column);
    CHECK(message.find(".toml:" + std::to_string(line) + ":" + std::to_string(column) + ": key '" +
                       c.key + "'") != std::string::npos);
    CHECK(message.find(c.words) != std::string::npos);
  }
}
