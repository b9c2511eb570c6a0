// PEtab problems read from disk: every problem of the suite (formats 1 and 2) and of the
// benchmark collection (tests/petab/) with its tables' rows; and bad tables refused at
// the file, line and column.
#include "io/config/petab_problem.hpp"

#include <doctest/doctest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

using namespace backsweep;
namespace fs = std::filesystem;

namespace {

const fs::path kPetab = fs::path(BACKSWEEP_SOURCE_DIR) / "tests/petab";

// Data rows of a TSV file: its non-blank lines less the header.
std::size_t rows_of(const fs::path& path) {
  std::ifstream in(path);
  std::size_t lines = 0;
  for (std::string line; std::getline(in, line);)
    if (line.find_first_not_of(" \t\r") != std::string::npos) ++lines;
  return lines - 1;
}

// A copy of a suite case in a scratch folder, with `file` replaced by `text`.
fs::path edited_case(const std::string& name, const std::string& file, const std::string& text) {
  const fs::path dir = fs::temp_directory_path() / ("backsweep_petab_" + std::to_string(::getpid()) + "_" + name);
  fs::remove_all(dir);
  fs::copy(kPetab / "test-suite/v1.0.0/sbml/0001", dir);
  std::ofstream(dir / file) << text;
  return dir / "_0001.yaml";
}

std::string error_of(const fs::path& problem) {
  try {
    read_petab_problem(problem.string());
  } catch (const ConfigError& e) {
    return e.what();
  }
  FAIL("read without error: " << problem);
  return "";
}

}  // namespace

TEST_CASE("every problem of the suite and the benchmarks is read, every measurement row with it") {
  int problems = 0;
  for (const auto& entry : fs::recursive_directory_iterator(kPetab)) {
    const std::string name = entry.path().filename().string();
    if (!is_petab_file(entry.path().string()) || name.ends_with("_solution.yaml") || name == "math_tests.yaml") continue;
    CAPTURE(entry.path());
    const PetabProblem problem = read_petab_problem(entry.path().string());
    CHECK(fs::is_regular_file(problem.sbml_file));
    CHECK(!problem.parameters.empty());
    ++problems;
    if (entry.path().parent_path().filename() == "test_data") continue;  // Fujita's variants share a folder
    std::size_t rows = 0;  // each problem's folder holds its measurement tables
    for (const auto& file : fs::directory_iterator(entry.path().parent_path()))
      if (file.path().filename().string().find("easurement") != std::string::npos) rows += rows_of(file.path());
    CHECK(problem.measurements.size() == rows);
  }
  CHECK(problems == 20 + 31 + 6 + 4);  // and Fujita's four input variants
}

TEST_CASE("format 1 and format 2 problems as their tables give them") {
  const PetabProblem one = read_petab_problem((kPetab / "test-suite/v1.0.0/sbml/0001/_0001.yaml").string());
  CHECK(one.format == 1);
  CHECK(one.parameters.size() == 4);
  CHECK(one.parameters[2].id == "k1");
  CHECK(one.parameters[2].nominal == 0.8);
  CHECK(one.parameters[2].estimate);
  REQUIRE(one.measurements.size() == 2);
  CHECK(one.measurements[1].time == 10.0);
  CHECK(one.measurements[1].value == 0.1);
  CHECK(one.measurements[1].condition == "c0");
  CHECK(one.find_observable("obs_a")->noise_formula == "0.5");

  // Pre-equilibration as format 2 writes it: a period from -inf.
  const PetabProblem two = read_petab_problem((kPetab / "test-suite/v2.0.0/sbml/0009/_0009.yaml").string());
  CHECK(two.format == 2);
  REQUIRE(two.experiments.size() == 1);
  REQUIRE(two.experiments[0].periods.size() == 2);
  CHECK(two.experiments[0].periods[0].time == -INFINITY);
  CHECK(two.experiments[0].periods[0].conditions == std::vector<std::string>{"preeq_c0"});
  REQUIRE(two.find_condition("c0"));
  CHECK(two.find_condition("c0")->changes[0].target == "k1");
  CHECK(two.find_condition("c0")->changes[0].value == "0.8");

  // A benchmark: log10 scales, and a measurement's noise parameters by id.
  const PetabProblem boehm =
      read_petab_problem((kPetab / "benchmark/Boehm_JProteomeRes2014/Boehm_JProteomeRes2014.yaml").string());
  CHECK(boehm.find_parameter("k_exp_hetero")->scale == "log10");
  CHECK(boehm.measurements.front().noise_parameters.size() == 1);
}

TEST_CASE("bad tables are refused at the file, the line and the column") {
  const std::string header = "observableId\tsimulationConditionId\ttime\tmeasurement\n";
  CHECK(error_of(edited_case("missing", "_measurements.tsv", "observableId\tsimulationConditionId\tmeasurement\nobs_a\tc0\t0.7\n"))
            .find("_measurements.tsv:1:1: the column 'time' is missing") != std::string::npos);
  CHECK(error_of(edited_case("unknown", "_measurements.tsv", header + "obs_a\tc0\t0\t0.7\nobs_z\tc0\t1\t0.2\n"))
            .find("_measurements.tsv:3:1: column 'observableId': 'obs_z' is not an observable") != std::string::npos);
  CHECK(error_of(edited_case("number", "_measurements.tsv", header + "obs_a\tc0\tlater\t0.7\n"))
            .find("_measurements.tsv:2:10: column 'time': 'later' is not a number") != std::string::npos);
  CHECK(error_of(edited_case("condition", "_measurements.tsv", header + "obs_a\tc9\t0\t0.7\n"))
            .find("'c9' is not a condition of the condition table") != std::string::npos);
  const std::string parameters = "parameterId\tparameterScale\tlowerBound\tupperBound\tnominalValue\testimate\n";
  CHECK(error_of(edited_case("log", "_parameters.tsv", parameters + "k1\tlog10\t0\t10\t0.8\t1\n"))
            .find("_parameters.tsv:2:") != std::string::npos);
  CHECK(error_of(edited_case("log", "_parameters.tsv", parameters + "k1\tlog10\t0\t10\t0.8\t1\n"))
            .find("column 'lowerBound': must be > 0 on a log10 scale") != std::string::npos);
  CHECK(error_of(edited_case("yaml", "_0001.yaml", "format_version: 1\nproblems: [ {\n"))
            .find("_0001.yaml:") != std::string::npos);
}
