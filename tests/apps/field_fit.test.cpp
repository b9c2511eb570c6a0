// `fit` of a parameter field, run as the real program on configs written here: the
// objective (sensor misfit + Tikhonov, H1 and TV regularisation) and its gradient with
// respect to every grid value of the field and a scalar, by the discrete adjoint, checked
// against the forward tangent of the same solve, central differences and a Taylor test
// in a random direction (the field read from an HDF5 file the test writes).
#include <doctest/doctest.h>
#include <hdf5.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/apps/run_cli.hpp"

namespace fs = std::filesystem;

namespace {

fs::path scratch() { return scratch_folder("field_fit"); }

constexpr std::size_t kNy = 8, kNx = 10;

// Periodic in y, Dirichlet in x; u' = div(k grad u) - c u^2, three sensors.
std::string config(const std::string& gradient_mode, const std::string& scale = "lin") {
  return R"toml(observables = [
  { name = "a", formula = "u[2, 3]" },
  { name = "b", formula = "u[5, 6]" },
  { name = "c", formula = "u[7, 1] + u[0, 8]" },
]
[grid]
shape    = [8, 10]
extent   = [1.2, 1.0]
boundary = ["periodic", "dirichlet"]
[model]
fields           = ["u"]
parameters       = ["c"]
parameter_fields = ["k"]
[model.equations]
u = "div_grad(k, u) - c*u^2"
[parameters]
c = 0.5
k = { file = "k.h5", dataset = "k" }
[initial]
u = "sin(pi*x)*(1 + 0.5*cos(2*pi*y/1.2))"
[time]
end    = 0.02
output = [0.01]
[solver]
method = "rk4"
step   = 5e-4
[[estimate]]
name  = "k"
lower = 0.1
upper = 10.0
scale = ")toml" + scale + R"toml("
[[estimate]]
name  = "c"
lower = 0.0
upper = 2.0
[regularization.k]
tikhonov   = 0.1
h1         = 0.01
tv         = 0.01
tv_epsilon = 0.1
reference  = 1.0
[data]
measurements = "sensors.csv"
[optimizer]
gradient = ")toml" + gradient_mode + R"toml("
max_iterations = 30
)toml";
}

void write_k(const std::vector<double>& k) {
  const hid_t file = H5Fcreate((scratch() / "k.h5").c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  const hsize_t shape[] = {kNy, kNx};
  const hid_t space = H5Screate_simple(2, shape, nullptr);
  const hid_t set = H5Dcreate2(file, "k", H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  H5Dwrite(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, k.data());
  H5Dclose(set);
  H5Sclose(space);
  H5Fclose(file);
}

std::vector<double> read_field(const std::string& file_name, const std::string& dataset) {
  const hid_t file = H5Fopen((scratch() / file_name).c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  REQUIRE(file >= 0);
  const hid_t set = H5Dopen2(file, dataset.c_str(), H5P_DEFAULT);
  REQUIRE(set >= 0);
  std::vector<double> values(kNy * kNx);
  H5Dread(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data());
  H5Dclose(set);
  H5Fclose(file);
  return values;
}

struct Evaluation {
  double objective, dJ_dc;
  std::vector<double> dJ_dk;
};

Evaluation evaluate(const std::vector<double>& k, const std::string& mode, const std::string& scale,
                    const std::string& options = "") {
  write_k(k);
  std::ofstream(scratch() / "f.toml") << config(mode, scale);
  const CliRun r = run_cli("gradient f.toml --json" + options, scratch());
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const auto json = nlohmann::json::parse(r.out);
  return {json["objective"].get<double>(), json["gradient"]["linear"]["c"].get<double>(),
          read_field("out/f/gradient.h5", "/gradient/parameter_fields/k")};
}

// The optimiser's scale changes theta, not dJ/dk: gradient.h5 holds the linear-space field.
void check_field_gradient(const std::string& scale) {
  std::ofstream(scratch() / "sensors.csv") << "observable,time,value,sigma\n"
                                              "a,0.01,0.4,0.05\nb,0.01,0.5,0.05\nc,0.02,0.6,0.1\n"
                                              "a,0.02,0.3,0.05\nb,0.02,0.45,0.05\n";
  std::mt19937_64 random(7);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::vector<double> k(kNy * kNx), v(k.size());
  for (std::size_t i = 0; i < k.size(); ++i) {
    k[i] = 1.0 + 0.3 * uniform(random);
    v[i] = uniform(random);
  }
  const Evaluation adjoint = evaluate(k, "adjoint", scale);
  double largest = 0.0, directional = 0.0;
  for (std::size_t i = 0; i < k.size(); ++i) {
    largest = std::max(largest, std::abs(adjoint.dJ_dk[i]));
    directional += adjoint.dJ_dk[i] * v[i];
  }
  REQUIRE(largest > 0.0);

  SUBCASE("adjoint = forward tangent of the same solve, at every grid point") {
    const Evaluation tangent = evaluate(k, "tangent", scale);
    CHECK(tangent.objective == doctest::Approx(adjoint.objective).epsilon(1e-13));
    CHECK(tangent.dJ_dc == doctest::Approx(adjoint.dJ_dc).epsilon(1e-10));
    for (std::size_t i = 0; i < k.size(); ++i) CHECK(std::abs(tangent.dJ_dk[i] - adjoint.dJ_dk[i]) <= 1e-10 * largest);
  }
  const auto along = [&](double step) {
    std::vector<double> moved(k);
    for (std::size_t i = 0; i < k.size(); ++i) moved[i] += step * v[i];
    return evaluate(moved, "adjoint", scale).objective;
  };
  SUBCASE("central differences in a random direction") {
    const double h = 1e-5, fd = (along(h) - along(-h)) / (2 * h);
    CHECK(std::abs(fd - directional) <= 1e-6 * std::abs(directional));
  }
  SUBCASE("Taylor: the first-order remainder falls as the step squared") {
    std::vector<double> remainders;
    for (double step : {4e-2, 2e-2, 1e-2, 5e-3})
      remainders.push_back(std::abs(along(step) - adjoint.objective - step * directional));
    for (std::size_t i = 1; i < remainders.size(); ++i) CHECK(std::log2(remainders[i - 1] / remainders[i]) >= 1.95);
  }
}

}  // namespace

TEST_CASE("field fit: the gradient over a parameter field against tangent, central differences and Taylor") {
  check_field_gradient("lin");
}

TEST_CASE("field fit: the same with the field estimated in log10 scale") { check_field_gradient("log10"); }

TEST_CASE("field fit: fit lowers the objective and writes the fitted field, fit.pvd and adjoint.pvd") {
  std::vector<double> k(kNy * kNx, 1.0);
  write_k(k);
  std::ofstream(scratch() / "f.toml") << config("adjoint");
  const CliRun r = run_cli("fit f.toml --json", scratch());
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  const auto json = nlohmann::json::parse(r.out);
  const Evaluation start = evaluate(k, "adjoint", "lin");
  CHECK(json["objective"].get<double>() < start.objective);
  CHECK(json["objective"].get<double>() ==
        doctest::Approx(json["misfit"].get<double>() + json["regularization"].get<double>()));
  CHECK(json["parameter_fields"]["k"]["min"].get<double>() >= 0.1);
  for (const char* file : {"out/f/fit.h5", "out/f/fit.pvd", "out/f/adjoint.pvd", "out/f/fit_residuals.csv"})
    CHECK_MESSAGE(fs::exists(scratch() / file), file);
  // The objective at the reported k (fit.h5) and c (JSON) is the reported objective.
  const double c = json["parameters"]["c"]["value"].get<double>();
  const Evaluation at_fit = evaluate(read_field("out/f/fit.h5", "/parameter_fields/k"), "adjoint", "lin",
                                     " --set parameters.c=" + nlohmann::json(c).dump());
  CHECK(at_fit.objective == doctest::Approx(json["objective"].get<double>()).epsilon(1e-12));

  SUBCASE("on the omp backend (its compiled kernels on every thread): the same fit, bitwise") {
    if (!BACKSWEEP_OPENMP_BUILT) return;
    write_k(k);
    ::setenv("OMP_NUM_THREADS", "2", 1);
    const CliRun omp = run_cli("fit f.toml --json --set solver.backend=omp --output-dir omp", scratch());
    ::unsetenv("OMP_NUM_THREADS");
    REQUIRE_MESSAGE(omp.exit_code == 0, omp.err);
    const auto on_omp = nlohmann::json::parse(omp.out);
    CHECK(on_omp["objective"] == json["objective"]);
    CHECK(on_omp["parameters"] == json["parameters"]);
    CHECK(read_field("omp/fit.h5", "/parameter_fields/k") == read_field("out/f/fit.h5", "/parameter_fields/k"));
  }

  SUBCASE("a value estimated twice, as a point of an estimated field, is refused") {
    std::ofstream(scratch() / "twice.toml") << config("adjoint") << "[[estimate]]\nname = \"k[0,0]\"\n"
                                                                      "lower = 0.1\nupper = 10\n";
    const CliRun refused = run_cli("fit twice.toml", scratch());
    CHECK(refused.exit_code == 2);
    CHECK(refused.err.find("'k[0,0]' is estimated already, as part of 'k'") != std::string::npos);
  }

  SUBCASE("more than one start is refused: a field's fit starts from its prior") {
    std::ofstream(scratch() / "s.toml") << config("adjoint") << "starts = 3\n";
    const CliRun refused = run_cli("fit s.toml", scratch());
    CHECK(refused.exit_code == 2);
    CHECK(refused.err.find("starts") != std::string::npos);
  }
}
