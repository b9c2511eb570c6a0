// Runs the real `backsweep fit` program on the examples (5 random starts must recover the
// truth within 2 standard errors), `gradient` on a fit config against central
// differences, and a corpus of malformed configs and data files.
#include <doctest/doctest.h>
#include <hdf5.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/apps/run_cli.hpp"
#include "tests/h5_read.hpp"

namespace fs = std::filesystem;

namespace {

fs::path scratch() { return scratch_folder("fit"); }

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

const fs::path kExamples = fs::path(BACKSWEEP_SOURCE_DIR) / "examples";

// The example config and its data in the scratch folder, so relative paths hold.
void copy_example(const std::string& name) {
  fs::create_directories(scratch() / "data");
  fs::copy_file(kExamples / (name + ".toml"), scratch() / (name + ".toml"),
                fs::copy_options::overwrite_existing);
  for (const auto& entry : fs::directory_iterator(kExamples / "data"))
    fs::copy_file(entry.path(), scratch() / "data" / entry.path().filename(),
                  fs::copy_options::overwrite_existing);
}

CliRun run(const std::string& arguments) { return run_cli(arguments, scratch()); }

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

std::size_t lines_of(const fs::path& path) {
  std::istringstream text(slurp(path));
  std::size_t count = 0;
  for (std::string line; std::getline(text, line);) ++count;
  return count;
}

}  // namespace

TEST_CASE("fit recovers the examples' true parameters within 2 standard errors") {
  const std::map<std::string, std::map<std::string, double>> truths = {
      {"lotka_volterra_fit", {{"alpha", 1.5}, {"beta", 1.0}, {"gamma", 3.0}, {"delta", 1.0}}},
      {"sir_fit", {{"beta", 0.3}, {"gamma", 0.1}, {"i0", 5.0}}},
      {"lorenz63_fit", {{"sigma", 10.0}, {"rho", 28.0}, {"beta", 8.0 / 3.0}}},
      {"robertson_fit", {{"k1", 0.04}, {"k2", 3e7}, {"k3", 1e4}}},
      {"pk_oral_doses_fit", {{"ka", 1.1}, {"CL", 3.2}, {"V", 20.0}, {"F", 0.65}}}};
  for (const auto& [name, truth] : truths) {
    CAPTURE(name);
    copy_example(name);
    const auto started = std::chrono::steady_clock::now();
    const CliRun result = run("fit " + name + ".toml --json");
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    CAPTURE(result.err);
    REQUIRE(result.exit_code == 0);
    const auto json = nlohmann::json::parse(result.out);
    CHECK(json["converged"] == true);
    CHECK(json["starts"].size() == 5);
    CHECK(result.err.find("iteration") != std::string::npos);  // progress lines
    std::string line;
    for (const auto& [parameter, value] : truth) {
      const double estimate = json["parameters"][parameter]["value"];
      const double error = json["parameters"][parameter]["standard_error"];
      line += " " + parameter + " " + std::to_string((estimate - value) / error) + " SE;";
      CHECK(error > 0.0);
      CHECK(std::abs(estimate - value) <= 2.0 * error);
    }
    MESSAGE(name << ": estimate - truth in standard errors:" << line << " run took " << seconds
                 << " s with 5 starts (" << json["gradient_mode"].get<std::string>() << ")");

    // Outputs: fit.h5 holds the same values; the residuals list every measurement.
    const fs::path out = scratch() / "out" / name;
    const hid_t file = H5Fopen((out / "fit.h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    REQUIRE(file >= 0);
    const hid_t set = H5Dopen2(file, "parameters/value", H5P_DEFAULT);
    REQUIRE(set >= 0);
    std::vector<double> values(truth.size());
    H5Dread(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data());
    H5Dclose(set);
    // The covariance in the parameters' own units: its diagonal gives the standard errors.
    const auto read = [&](const char* name) { return read_dataset(file, name); };
    const std::vector<double> errors = read("parameters/standard_error"), covariance = read("parameters/covariance"),
                              correlation = read("parameters/correlation");
    const std::size_t q = truth.size();
    REQUIRE(covariance.size() == q * q);
    for (std::size_t i = 0; i < q; ++i) {
      CHECK(std::sqrt(covariance[i * q + i]) == doctest::Approx(errors[i]).epsilon(1e-12));
      CHECK(correlation[i * q + i] == doctest::Approx(1.0).epsilon(1e-14));
    }
    // Booleans as h5py writes them, counters as integers, the best start counted from 1.
    const hid_t converged = H5Aopen(file, "converged", H5P_DEFAULT), best = H5Aopen_by_name(file, "starts", "best",
                                                                                            H5P_DEFAULT, H5P_DEFAULT);
    const hid_t converged_type = H5Aget_type(converged), best_type = H5Aget_type(best);
    CHECK(H5Tget_class(converged_type) == H5T_ENUM);
    CHECK(H5Tget_class(best_type) == H5T_INTEGER);
    unsigned long long best_start = 0;
    H5Aread(best, H5T_NATIVE_ULLONG, &best_start);
    CHECK(best_start >= 1);
    CHECK(best_start <= 5);
    for (hid_t id : {converged_type, best_type}) H5Tclose(id);
    for (hid_t id : {converged, best}) H5Aclose(id);
    CHECK(H5Lexists(file, "starts/objective", H5P_DEFAULT) > 0);
    CHECK(H5Lexists(file, "trajectories", H5P_DEFAULT) > 0);
    H5Fclose(file);
    const std::string first = json["parameters"].begin().key();
    CHECK(std::find(values.begin(), values.end(), json["parameters"][first]["value"].get<double>()) !=
          values.end());
    const std::string data_file = name.substr(0, name.size() - 4) + ".csv";
    CHECK(lines_of(out / "fit_residuals.csv") == lines_of(scratch() / "data" / data_file));
    CHECK(slurp(out / "fit_trajectories.csv").rfind("experiment,time,", 0) == 0);
  }
}

TEST_CASE("gradient on a fit config: scaled and linear, adjoint and tangent, against FD") {
  copy_example("sir_fit");
  const std::string base = slurp(scratch() / "sir_fit.toml");
  auto gradient = [&](const std::string& text) {
    std::ofstream(scratch() / "g.toml") << text;
    const CliRun result = run("gradient g.toml --json");
    CAPTURE(result.err);
    REQUIRE(result.exit_code == 0);
    return nlohmann::json::parse(result.out);
  };
  const auto tangent = gradient(replaced(base, "seed   = 1", "seed = 1\ngradient = \"tangent\""));
  const auto adjoint = gradient(replaced(base, "seed   = 1", "seed = 1\ngradient = \"adjoint\""));
  // Revolve with 3 slots changes nothing, bitwise.
  const auto revolve = gradient(replaced(base, "seed   = 1", "seed = 1\ngradient = \"adjoint\"") +
                                "\n[checkpointing]\nschedule = \"revolve\"\nslots = 3\n");
  CHECK(revolve["gradient"] == adjoint["gradient"]);
  CHECK(tangent["gradient_mode"] == "tangent");
  CHECK(adjoint["gradient_mode"] == "adjoint");
  // Without [optimizer], auto still applies its rule: 3 states and 3 parameters fit in one
  // Dual chunk.
  CHECK(gradient(replaced(base, "[optimizer]\nstarts = 5\nseed   = 1\n", ""))["gradient_mode"] ==
        "tangent");
  for (const char* p : {"beta", "gamma", "i0"}) {
    CAPTURE(p);
    const double scaled = adjoint["gradient"]["scaled"][p];
    CHECK(scaled == doctest::Approx(tangent["gradient"]["scaled"][p].get<double>()).epsilon(1e-9));
    CHECK(std::abs(scaled) > 1.0);
  }
  // log10 scale: d/d(log10 beta) = beta ln(10) d/dbeta, at the nominal beta = 0.5.
  CHECK(adjoint["gradient"]["scaled"]["beta"].get<double>() ==
        doctest::Approx(0.5 * std::log(10.0) * adjoint["gradient"]["linear"]["beta"].get<double>()));
  // Central differences of the printed objective in beta and in i0 (through [initial]).
  auto objective_at = [&](const std::string& from, const std::string& to) {
    return gradient(replaced(base, from, to))["objective"].get<double>();
  };
  const double fd_beta = (objective_at("beta  = 0.5", "beta = 0.500001") -
                          objective_at("beta  = 0.5", "beta = 0.499999")) / 2e-6;
  const double fd_i0 = (objective_at("i0    = 1", "i0 = 1.0001") -
                        objective_at("i0    = 1", "i0 = 0.9999")) / 2e-4;
  CHECK(adjoint["gradient"]["linear"]["beta"].get<double>() == doctest::Approx(fd_beta).epsilon(1e-5));
  CHECK(adjoint["gradient"]["linear"]["i0"].get<double>() == doctest::Approx(fd_i0).epsilon(1e-5));
}

TEST_CASE("fit: a corpus of malformed configs and data files exits 2, names where, writes nothing") {
  copy_example("lotka_volterra_fit");
  const std::string config = slurp(scratch() / "lotka_volterra_fit.toml");
  const std::string data = slurp(scratch() / "data" / "lotka_volterra.csv");
  const std::string with_bad_data =
      replaced(config, "measurements = \"data/lotka_volterra.csv\"", "measurements = \"data/bad.csv\"");
  struct Case {
    std::string config, data, words;  // data: the contents of data/bad.csv, if used
  };
  const std::string binary("\x7f" "ELF\x02\x01\x01\x00\x00\xff\xfe", 11);
  const Case cases[] = {
      // The config.
      {replaced(config, "[data]\nmeasurements = \"data/lotka_volterra.csv\"\n", ""), "", "key 'data'"},
      {replaced(config, "measurements = \"data/lotka_volterra.csv\"", "measurements = \"data/missing.csv\""), "", "key 'data.measurements': no such file"},
      {replaced(config, "measurements = \"data/lotka_volterra.csv\"", "measurements = \"data\""), "", "key 'data.measurements': is a directory"},
      {replaced(config, "name  = \"alpha\"", "name  = \"alphax\""), "", "key 'estimate.name': unknown parameter 'alphax'"},
      {replaced(config, "lower = 0.1\nupper = 10.0\nscale = \"log10\"\n\n[[estimate]]\nname  = \"beta\"",
                "lower = 10.0\nupper = 0.1\nscale = \"log10\"\n\n[[estimate]]\nname  = \"beta\""), "", "key 'estimate.upper': must be greater than lower"},
      {replaced(config, "alpha = 1.0", "alpha = 20.0"), "", "lies outside [lower, upper]"},
      {replaced(config, "scale = \"log10\"", "scale = \"ln\""), "", "key 'estimate.scale': must be lin or log10"},
      {replaced(config, "lower = 0.1", "lower = 0.0"), "", "key 'estimate.lower': must be > 0"},
      {replaced(config, "upper = 10.0\n", ""), "", "key 'estimate.upper'"},
      {replaced(config, "lower = 0.1", "lower = \"low\""), "", "key 'estimate.lower'"},
      {replaced(config, "name  = \"beta\"", "name  = \"alpha\""), "", "'alpha' is estimated twice"},
      {replaced(config, "formula = \"x\"", "formula = \"x + w\""), "", "key 'observables.formula': unknown name 'w'"},
      {replaced(config, "formula = \"x\"", "formula = \"x +\""), "", "key 'observables.formula'"},
      {replaced(config, "name    = \"predator\"", "name    = \"prey\""), "", "observable 'prey' is defined twice"},
      {replaced(config, "formula = \"y\"\n", ""), "", "key 'observables.formula': is required"},
      {replaced(config, "[[observables]]\nname    = \"prey\"\nformula = \"x\"\n\n[[observables]]\nname    = \"predator\"\nformula = \"y\"\n", ""), "", "key 'observables'"},
      {replaced(config, "sigma = \"data\"", "sigma = \"maybe\""), "", "key 'noise.sigma': must be data or estimate"},
      {replaced(config, "model = \"gaussian\"", "model = \"poisson\""), "", "key 'noise.model'"},
      {replaced(config, "method = \"lbfgsb\"", "method = \"bfgs\""), "", "key 'optimizer.method'"},
      {replaced(config, "starts = 5", "starts = 0"), "", "key 'optimizer.starts'"},
      {replaced(config, "seed   = 1", "seed = 1\ngradient_tolerance = -1.0"), "", "key 'optimizer.gradient_tolerance'"},
      {replaced(config, "seed   = 1", "seed = 1\nmax_iterations = 0"), "", "key 'optimizer.max_iterations'"},
      {replaced(config, "starts = 5", "start = 5"), "", "key 'optimizer.start'"},
      {replaced(config, "rtol   = 1e-8", "rtol   = -1e-8"), "", "key 'solver.rtol'"},
      {replaced(config, "rtol   = 1e-8", "rtol   = nan"), "", "key 'solver.rtol'"},
      {replaced(config, "atol   = 1e-10", "atol   = \"small\""), "", "key 'solver.atol'"},
      {replaced(config, "name = \"lotka_volterra\"", "name = \"lotka\""), "", "key 'model.name': unknown model 'lotka'"},
      {replaced(config, "end = 10.0\n", ""), "", "key 'time.end'"},
      {config + "\n[[experiments]]\nid = \"a\"\nparameters = { alpha = 2.0 }\n", "", "key 'experiments.parameters.alpha': is estimated"},
      {config + "\n[[experiments]]\nid = \"a\"\ninitial = { w = 2.0 }\n", "", "unknown state"},
      {config + "\n[[experiments]]\nid = \"a\"\n[[experiments]]\nid = \"a\"\n", "", "experiment 'a' is defined twice"},
      {replaced(config, "scale = \"log10\"", "scale = \"log10\"\nestimate = \"yes\""), "", "key 'estimate.estimate'"},
      {replaced(config, "[noise]", "[noise"), "", "TOML syntax error"},
      {"", "", "key 'model'"},
      {binary, "", "bad_config"},
      // The data.
      {with_bad_data, "", "bad.csv: is empty"},
      {with_bad_data, binary, "bad.csv:1:1: is not a text CSV file"},
      {with_bad_data, "observable,time,sigma\nprey,0.5,0.1\n", "bad.csv:1:1: the header lacks column 'value'"},
      {with_bad_data, "observable,time,value,sigma,weight\n", "bad.csv:1:29: unknown column 'weight'"},
      {with_bad_data, "observable,time,value,sigma\nprey,0.5,abc,0.1\n", "bad.csv:2:10: column 'value': 'abc' is not a finite number"},
      {with_bad_data, "observable,time,value,sigma\nprey,0.5,nan,0.1\n", "bad.csv:2:10: column 'value': 'nan' is not a finite number"},
      {with_bad_data, "observable,time,value,sigma\nprey,0.5,1.0,-0.1\n", "bad.csv:2:14: column 'sigma': must be > 0"},
      {with_bad_data, "observable,time,value,sigma\nprey,1.0,1.0,0.1\nprey,0.5,1.0,0.1\n", "bad.csv:3:6: column 'time': times must not decrease"},
      {with_bad_data, "observable,time,value,sigma\nprey,12.0,1.0,0.1\n", "bad.csv:2:6: column 'time': 12.0 lies outside"},
      {with_bad_data, "observable,time,value,sigma\nwolves,0.5,1.0,0.1\n", "bad.csv:2:1: column 'observable': unknown observable 'wolves' (known: prey, predator)"},
      {with_bad_data, "observable,time,value,sigma\nprey,0.5,1.0\n", "bad.csv:2:1: has 3 fields, the header 4"},
      {with_bad_data, "observable,time,value,sigma\n", "bad.csv:1:0: has no measurements"},
      {with_bad_data, "observable,time,value,sigma,experiment\nprey,0.5,1.0,0.1,lab2\n", "column 'experiment': unknown experiment 'lab2'"},
      {with_bad_data, "observable,time,value\nprey,0.5,1.0\n", "bad.csv:1:1: the header lacks column 'sigma'"},
      {with_bad_data, "observable,time,time,value,sigma\n", "column 'time' appears twice"},
      {with_bad_data, "observable,time,value,sigma\nprey,,1.0,0.1\n", "column 'time': '' is not a finite number"},
  };
  int index = 0;
  for (const Case& c : cases) {
    const std::string name = "bad_config" + std::to_string(index++) + ".toml";
    std::ofstream(scratch() / name, std::ios::binary) << c.config;
    fs::remove(scratch() / "data" / "bad.csv");
    if (!c.data.empty() || c.words.find("is empty") != std::string::npos)
      std::ofstream(scratch() / "data" / "bad.csv", std::ios::binary) << c.data;
    fs::remove_all(scratch() / "out");
    const CliRun result = run("fit " + name);
    CAPTURE(name);
    CAPTURE(result.err);
    CHECK(result.exit_code == 2);
    CHECK(result.err.find(c.data.empty() && c.words.find("bad.csv") == std::string::npos ? name : "bad.csv") !=
          std::string::npos);
    CHECK(result.err.find(c.words) != std::string::npos);
    CHECK(!fs::exists(scratch() / "out"));
  }
}

TEST_CASE("fit: two experiments with their own initial states, and estimated noise") {
  copy_example("lotka_volterra_fit");
  // Noise-free data from two experiments, simulated by backsweep at the truth.
  const std::string truth = slurp(scratch() / "data" / "lotka_volterra_truth.toml");
  std::ostringstream csv;
  csv.precision(17);
  csv << "experiment,observable,time,value,sigma\n";
  for (const auto& [id, initial] : std::map<std::string, std::string>{
           {"a", "x = 1.0\ny = 1.0"}, {"b", "x = 2.0\ny = 0.5"}}) {
    std::ofstream(scratch() / "truth.toml") << replaced(truth, "x = 1.0\ny = 1.0", initial);
    const CliRun simulated = run("simulate truth.toml --json");
    REQUIRE(simulated.exit_code == 0);
    const auto json = nlohmann::json::parse(simulated.out);
    for (std::size_t k = 1; k < json["times"].size(); ++k)
      csv << id << ",prey," << json["times"][k].get<double>() << ','
          << json["states"]["x"][k].get<double>() << ",0.1\n"
          << id << ",predator," << json["times"][k].get<double>() << ','
          << json["states"]["y"][k].get<double>() << ",0.1\n";
  }
  std::ofstream(scratch() / "data" / "two.csv") << csv.str();
  const std::string config =
      replaced(slurp(scratch() / "lotka_volterra_fit.toml"), "measurements = \"data/lotka_volterra.csv\"",
               "measurements = \"data/two.csv\"") +
      "\n[[experiments]]\nid = \"a\"\n\n[[experiments]]\nid = \"b\"\ninitial = { x = 2.0, y = 0.5 }\n";
  // Lotka-Volterra likelihoods have many local minima (other periods): more starts.
  std::ofstream(scratch() / "two.toml") << replaced(config, "starts = 5", "starts = 20");
  const CliRun fitted = run("fit two.toml --json");
  CAPTURE(fitted.err);
  REQUIRE(fitted.exit_code == 0);
  const auto parameters = nlohmann::json::parse(fitted.out)["parameters"];
  for (const auto& [name, value] : std::map<std::string, double>{
           {"alpha", 1.5}, {"beta", 1.0}, {"gamma", 3.0}, {"delta", 1.0}}) {
    CAPTURE(name);
    CHECK(parameters[name]["value"].get<double>() == doctest::Approx(value).epsilon(1e-4));
  }

  // The example's data (noise sigma 0.1) with the noise estimated instead of given.
  std::ofstream(scratch() / "estimated.toml")
      << replaced(replaced(slurp(scratch() / "lotka_volterra_fit.toml"), "sigma = \"data\"",
                           "sigma = \"estimate\""),
                  "starts = 5", "starts = 20");
  const CliRun estimated = run("fit estimated.toml --json");
  CAPTURE(estimated.err);
  REQUIRE(estimated.exit_code == 0);
  // The 20 starts in parallel (backend omp): every start, and so the fit, is the serial one.
  std::ofstream(scratch() / "parallel.toml")
      << replaced(slurp(scratch() / "estimated.toml"), "[solver]", "[solver]\nbackend = \"omp\"");
  const CliRun parallel = run("fit parallel.toml --json");
  CAPTURE(parallel.err);
#if BACKSWEEP_OPENMP_BUILT
  REQUIRE(parallel.exit_code == 0);
  for (const char* key : {"objective", "parameters", "sigma", "starts"})
    CHECK(nlohmann::json::parse(parallel.out)[key] == nlohmann::json::parse(estimated.out)[key]);
#else
  CHECK(parallel.exit_code == 2);
#endif
  // One start with backend omp: its two experiments at once, a thread each; the same fit.
  std::ofstream(scratch() / "one_start.toml") << replaced(config, "starts = 5", "starts = 1");
  std::ofstream(scratch() / "one_start_omp.toml")
      << replaced(slurp(scratch() / "one_start.toml"), "[solver]", "[solver]\nbackend = \"omp\"");
  const CliRun one_start = run("fit one_start.toml --json --output-dir out/one_start"),
               threaded = run("fit one_start_omp.toml --json --output-dir out/one_start");
  REQUIRE(one_start.exit_code == 0);
#if BACKSWEEP_OPENMP_BUILT
  REQUIRE(threaded.exit_code == 0);
  for (const char* key : {"objective", "parameters", "starts", "monitor"})
    CHECK(nlohmann::json::parse(threaded.out)[key] == nlohmann::json::parse(one_start.out)[key]);
#endif
  const auto sigma = nlohmann::json::parse(estimated.out)["sigma"];
  MESSAGE("profiled noise: prey " << sigma["prey"] << ", predator " << sigma["predator"] << " (truth 0.1)");
  // Pooled over the observables, the profiled variance is that of the noise actually in
  // the file (data minus truth) less the share the 4 fitted parameters take up.
  const CliRun simulated = run("simulate data/lotka_volterra_truth.toml --json");
  REQUIRE(simulated.exit_code == 0);
  const auto truth_run = nlohmann::json::parse(simulated.out);
  std::istringstream data(slurp(scratch() / "data" / "lotka_volterra.csv"));
  std::string line;
  std::getline(data, line);
  double noise_squares = 0.0;
  int count = 0;
  for (; std::getline(data, line); ++count) {
    std::istringstream fields(line);
    std::string observable, time, value;
    std::getline(fields, observable, ',');
    std::getline(fields, time, ',');
    std::getline(fields, value, ',');
    const auto k = std::size_t(std::lround(std::stod(time) / 0.5));  // output_step 0.5
    const double exact = truth_run["states"][observable == "prey" ? "x" : "y"][k];
    noise_squares += (std::stod(value) - exact) * (std::stod(value) - exact);
  }
  REQUIRE(count == 40);
  const double pooled = (std::pow(sigma["prey"].get<double>(), 2) + std::pow(sigma["predator"].get<double>(), 2)) / 2;
  CHECK(pooled == doctest::Approx(noise_squares / count * (1.0 - 4.0 / 40.0)).epsilon(0.1));
  // And exactly the RMS residual of its observable at the optimum: the residuals, in
  // units of the sigma used, have mean square 1.
  std::istringstream rows(slurp(scratch() / "out" / "lotka_volterra_fit" / "fit_residuals.csv"));
  std::map<std::string, std::pair<double, int>> squares;
  std::string row;
  std::getline(rows, row);
  while (std::getline(rows, row)) {
    const auto observable_at = row.find(',') + 1;
    const std::string observable = row.substr(observable_at, row.find(',', observable_at) - observable_at);
    const double residual = std::stod(row.substr(row.rfind(',') + 1));
    squares[observable].first += residual * residual;
    squares[observable].second += 1;
  }
  REQUIRE(squares.size() == 2);
  for (const auto& [observable, sum] : squares)
    CHECK(sum.first / sum.second == doctest::Approx(1.0).epsilon(1e-9));
}

TEST_CASE("fit with CVODES: adjoint gradients and forward-sensitivity standard errors match ours") {
  copy_example("sir_fit");  // i0 enters through [initial]: the y0(p) path in both
  const std::string base = slurp(scratch() / "sir_fit.toml");
  std::map<std::string, nlohmann::json> fits;
  for (const std::string method : {"dopri5", "cvodes_bdf", "cvodes_adams"}) {
    std::ofstream(scratch() / (method + ".toml"))
        << replaced(replaced(base, "method = \"dopri5\"", "method = \"" + method + "\""), "rtol   = 1e-8",
                    "rtol   = 1e-10");
    const CliRun fitted = run("fit " + method + ".toml --json");
    CAPTURE(fitted.err);
    REQUIRE(fitted.exit_code == 0);
    fits[method] = nlohmann::json::parse(fitted.out);
  }
  for (const std::string method : {"cvodes_bdf", "cvodes_adams"}) {
    CAPTURE(method);
    CHECK(fits[method]["converged"] == true);
    for (const std::string name : {"beta", "gamma", "i0"}) {
      CAPTURE(name);
      const auto& ours = fits["dopri5"]["parameters"][name];
      const auto& theirs = fits[method]["parameters"][name];
      CHECK(theirs["value"].get<double>() == doctest::Approx(ours["value"].get<double>()).epsilon(1e-5));
      CHECK(theirs["standard_error"].get<double>() ==
            doctest::Approx(ours["standard_error"].get<double>()).epsilon(1e-4));
    }
  }
}
