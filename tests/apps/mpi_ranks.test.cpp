// The real backsweep program under the real mpirun (issue 32): a fit's experiments, an
// inversion's shots and a multi-start's starts spread over 1 to 4 ranks give results
// bitwise those of one process without mpirun; rank 0 alone prints and writes; a rank
// that fails ends every rank, with its message printed once.
#include <doctest/doctest.h>
#include <hdf5.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/apps/run_cli.hpp"
#include "tests/h5_read.hpp"

namespace fs = std::filesystem;

namespace {

fs::path scratch() { return scratch_folder("mpi_ranks"); }

const fs::path kExamples = fs::path(BACKSWEEP_SOURCE_DIR) / "examples";

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

// Open MPI as root, with more ranks than cores, and without the shared-memory copy
// mechanism containers forbid.
std::string mpirun(int ranks) {
  return "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none " +
         std::string(BACKSWEEP_MPIEXEC) + " --oversubscribe -np " + std::to_string(ranks) + " ";
}

// Without mpirun for ranks = 0.
CliRun run(const std::string& arguments, int ranks = 0) {
  return run_cli(arguments, scratch(), ranks ? mpirun(ranks) : "");
}

// The example's config and data in `folder`, so relative paths hold.
void copy_example(const std::string& name, const fs::path& folder) {
  fs::create_directories(folder / "data");
  fs::copy_file(kExamples / (name + ".toml"), folder / (name + ".toml"), fs::copy_options::overwrite_existing);
  for (const auto& entry : fs::directory_iterator(kExamples / "data"))
    fs::copy_file(entry.path(), folder / "data" / entry.path().filename(), fs::copy_options::overwrite_existing);
}

// Lotka–Volterra with four experiments, each from its own initial state, measured alike.
void write_four_experiments(const fs::path& folder) {
  copy_example("lotka_volterra_fit", folder);
  std::istringstream data(slurp(folder / "data" / "lotka_volterra.csv"));
  std::string header, line;
  std::getline(data, header);
  std::ostringstream csv;
  csv << "experiment," << header << '\n';
  for (std::vector<std::string> rows; std::getline(data, line);)
    for (const char* id : {"a", "b", "c", "d"}) csv << id << ',' << line << '\n';
  std::ofstream(folder / "data" / "four.csv") << csv.str();
  std::ofstream(folder / "four.toml")
      << replaced(slurp(folder / "lotka_volterra_fit.toml"), "measurements = \"data/lotka_volterra.csv\"",
                  "measurements = \"data/four.csv\"")
      << "\n[[experiments]]\nid = \"a\"\n[[experiments]]\nid = \"b\"\ninitial = { x = 2.0, y = 0.5 }\n"
         "[[experiments]]\nid = \"c\"\ninitial = { x = 0.5, y = 1.5 }\n"
         "[[experiments]]\nid = \"d\"\ninitial = { x = 1.5, y = 0.8 }\n";
}

// How many "error: ..." lines a run printed.
std::size_t error_lines(const std::string& err) {
  std::istringstream lines(err);
  std::size_t errors = 0;
  for (std::string line; std::getline(lines, line);) errors += line.starts_with("error:");
  return errors;
}

// The results as printed, but for what says how the ranks ran.
std::string results(const CliRun& run, int ranks) {
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  nlohmann::json json = nlohmann::json::parse(run.out);
  CHECK(json["ranks"] == std::max(ranks, 1));
  json.erase("ranks");
  json.erase("split");
  return json.dump();  // numbers to 17 digits: equal text is equal bits
}

// A parameter field's gradient as gradient.h5 holds it, and the ranks the file records.
std::pair<std::vector<double>, std::uint64_t> field_gradient(const fs::path& file, const char* dataset) {
  const hid_t h5 = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  REQUIRE(h5 >= 0);
  std::uint64_t ranks = 0;
  const hid_t attribute = H5Aopen(h5, "ranks", H5P_DEFAULT);
  CHECK(H5Aread(attribute, H5T_NATIVE_UINT64, &ranks) >= 0);
  H5Aclose(attribute);
  std::vector<double> values = read_dataset(h5, dataset);
  H5Fclose(h5);
  return {std::move(values), ranks};
}

// A fit config's gradient, alone and over 1 to 4 ranks; with `field`, also the field's
// gradient in `h5` bit for bit.
void check_gradient_over_ranks(const std::string& arguments, const std::string& split, const fs::path& h5 = {},
                               const char* field = nullptr) {
  CAPTURE(arguments);
  const std::string alone = results(run(arguments), 0);
  const std::vector<double> alone_field = field ? field_gradient(scratch() / h5, field).first : std::vector<double>{};
  for (int ranks = 1; ranks <= 4; ++ranks) {
    CAPTURE(ranks);
    const CliRun spread = run(arguments, ranks);
    CHECK(results(spread, ranks) == alone);
    if (ranks > 1) CHECK(nlohmann::json::parse(spread.out)["split"] == split);
    if (!field) continue;
    const auto [values, recorded] = field_gradient(scratch() / h5, field);
    CHECK(recorded == std::uint64_t(ranks));
    REQUIRE(values.size() == alone_field.size());
    CHECK(std::memcmp(values.data(), alone_field.data(), values.size() * sizeof(double)) == 0);
  }
}

}  // namespace

TEST_CASE("a fit's experiments over 1 to 4 ranks: the gradient bitwise the run alone's, under each schedule") {
  write_four_experiments(scratch());
  for (const char* schedule :
       {"", " --set checkpointing.schedule='\"revolve\"' --set checkpointing.slots=3",
        " --set checkpointing.schedule='\"online\"' --set checkpointing.slots=4"})
    check_gradient_over_ranks(std::string("gradient four.toml --json") + schedule, "experiments");
}

TEST_CASE("the acoustic inversion's three shots over 1 to 4 ranks: the c-field gradient bitwise, two-level too") {
  copy_example("fwi_fit", scratch());
  const fs::path h5 = fs::path("out") / "fwi" / "gradient.h5";
  const char* c = "/gradient/parameter_fields/c";
  check_gradient_over_ranks("gradient fwi_fit.toml --json", "experiments", h5, c);
  check_gradient_over_ranks("gradient fwi_fit.toml --json --set checkpointing.schedule='\"two_level\"' "
                            "--set checkpointing.slots=4 --set checkpointing.disk='\"2MiB\"'",
                            "experiments", h5, c);
#if BACKSWEEP_OPENMP_BUILT
  // backend omp: the shots a thread each, alone and within 2 ranks; the same bits as cpu.
  REQUIRE(run("gradient fwi_fit.toml").exit_code == 0);
  const std::vector<double> cpu = field_gradient(scratch() / h5, c).first;
  for (int ranks : {0, 2}) {
    CAPTURE(ranks);
    REQUIRE(run("gradient fwi_fit.toml --set solver.backend='\"omp\"'", ranks).exit_code == 0);
    const std::vector<double> threads = field_gradient(scratch() / h5, c).first;
    REQUIRE(threads.size() == cpu.size());
    CHECK(std::memcmp(threads.data(), cpu.data(), cpu.size() * sizeof(double)) == 0);
  }
#endif
}

TEST_CASE("fit over ranks: one start spreads its experiments, several spread the starts; results bitwise") {
  write_four_experiments(scratch());
  // Standard errors (forward sensitivities) and profiled noise (forward solves) are spread too.
  for (const auto& [starts, split, noise] :
       {std::tuple{1, "experiments", "data"}, std::tuple{3, "starts", "data"}, std::tuple{1, "experiments", "estimate"}}) {
    const std::string arguments = "fit four.toml --json --set optimizer.starts=" + std::to_string(starts) +
                                  " --set optimizer.max_iterations=15 --set noise.sigma=" + noise;
    CAPTURE(arguments);
    const std::string alone = results(run(arguments), 0);
    for (int ranks : {2, 3}) {
      CAPTURE(ranks);
      fs::remove_all(scratch() / "out");
      const CliRun spread = run(arguments, ranks);
      CHECK(results(spread, ranks) == alone);
      CHECK(nlohmann::json::parse(spread.out)["split"] == split);
      // Rank 0 alone wrote the output set, and its record says how many ranks ran.
      const nlohmann::json record =
          nlohmann::json::parse(slurp(scratch() / "out" / "lotka_volterra_fit" / "fit_run.json"));
      CHECK(record["ranks"] == ranks);
      CHECK(spread.err.find("spread over " + std::to_string(ranks) + " ranks") != std::string::npos);
    }
  }
}

TEST_CASE("an ensemble's members over 1 to 4 ranks: every row bitwise the run alone's") {
  copy_example("lorenz63_ensemble", scratch());
  const std::string arguments = "gradient lorenz63_ensemble.toml --json";
  const std::string alone = results(run(arguments), 0);
  for (int ranks = 2; ranks <= 4; ++ranks) {
    CAPTURE(ranks);
    const CliRun spread = run(arguments, ranks);
    nlohmann::json json = nlohmann::json::parse(spread.out);
    CHECK(json["split"] == "members");
    nlohmann::json reference = nlohmann::json::parse(alone);
    for (const char* timing : {"seconds", "gradients_per_second"}) {  // what each run measures for itself
      json["ensemble"].erase(timing);
      reference["ensemble"].erase(timing);
    }
    json.erase("ranks");
    json.erase("split");
    const bool same = json.dump() == reference.dump();  // 10^4 members: not printed
    CHECK(same);
  }
}

TEST_CASE("a config only one rank cannot read ends every rank, with one message naming the rank") {
  // Two working folders, the same config: rank 1's lacks the data file.
  const fs::path good = scratch() / "good", bad = scratch() / "bad";
  write_four_experiments(good);
  write_four_experiments(bad);
  fs::remove(bad / "data" / "four.csv");
  const std::string program = " " + std::string(BACKSWEEP_CLI) + " fit four.toml --json";
  for (const auto& [first, second, rank] : {std::tuple{good, bad, 1}, std::tuple{bad, good, 0}}) {
    CAPTURE(rank);
    const CliRun failed =
        run_cli("fit four.toml --json : -np 1 -wdir " + second.string() + program, scratch(),
                mpirun(1) + "-wdir " + first.string() + " ");
    CHECK(failed.exit_code == 2);
    CHECK(error_lines(failed.err) == 1);
    CHECK(failed.err.find("four.csv") != std::string::npos);
    CHECK((failed.err.find("error: rank 1: ") != std::string::npos) == (rank == 1));
    const nlohmann::json error = nlohmann::json::parse(failed.out);  // one object, from rank 0
    CHECK(error["error"]["exit_code"] == 2);
    CHECK(error["ranks"] == 2);
    CHECK(!fs::exists(first / "out"));
    CHECK(!fs::exists(second / "out"));
  }
}

TEST_CASE("a checkpoint folder only one rank cannot write ends every rank, with its message once") {
  const fs::path good = scratch() / "writes", bad = scratch() / "cannot_write";
  for (const fs::path& folder : {good, bad}) {
    fs::remove_all(folder);
    copy_example("fwi_fit", folder);
  }
  std::ofstream(bad / "out") << "a file where rank 1's output folder goes\n";
  const std::string arguments = " gradient fwi_fit.toml --set checkpointing.schedule=two_level "
                                "--set checkpointing.slots=4 --set checkpointing.disk=2MiB";
  const CliRun failed =
      run_cli(arguments + " : -np 1 -wdir " + bad.string() + " " + BACKSWEEP_CLI + arguments, scratch(),
              mpirun(1) + "-wdir " + good.string() + " ");
  CHECK(failed.exit_code == 1);
  CHECK(error_lines(failed.err) == 1);
  CHECK(failed.err.find("out/fwi") != std::string::npos);  // the shot's error, which every rank then throws
  CHECK(!fs::exists(good / "out" / "fwi" / "gradient.h5"));  // rank 0 wrote nothing either
}

namespace {

// Every file under `folder` with its bytes.
std::map<std::string, std::string> files_in(const fs::path& folder) {
  std::map<std::string, std::string> files;
  for (const auto& entry : fs::recursive_directory_iterator(folder))
    if (entry.is_regular_file()) files[fs::relative(entry.path(), folder).string()] = slurp(entry.path());
  return files;
}

// `arguments` on two ranks, rank 1 under a 700 MB address-space limit.
CliRun with_rank_1_limited(const std::string& arguments) {
  return run_cli(arguments + " : -np 1 sh -c \"ulimit -v 700000; exec " + std::string(BACKSWEEP_CLI) + " " +
                     arguments + "\"",
                 scratch(), mpirun(1));
}

}  // namespace

TEST_CASE("a rank out of memory, or killed, ends every rank; the earlier output set stays whole") {
  copy_example("fwi_fit", scratch());
  fs::remove_all(scratch() / "out");
  REQUIRE(run("gradient fwi_fit.toml", 2).exit_code == 0);
  const std::map<std::string, std::string> earlier = files_in(scratch() / "out");
  const std::string program = std::string(BACKSWEEP_CLI);
  // Rank 1 keeps every step (store_all) under its limit: it runs out.
  const std::string store_all = " gradient fwi_fit.toml --set time.end=100.0 --set checkpointing.schedule='\"store_all\"'";
  const CliRun out_of_memory = with_rank_1_limited(store_all);
  CHECK(out_of_memory.exit_code == 1);
  CHECK(error_lines(out_of_memory.err) == 1);
  CHECK(out_of_memory.err.find("error: out of memory") != std::string::npos);  // the shot's, thrown by every rank
  CHECK(files_in(scratch() / "out") == earlier);

  // The same where every rank runs the whole command (gradient on a model config that does
  // not split its grid: backend omp): rank 0 finishes, but writes nothing before every
  // rank has.
  copy_example("gray_scott", scratch());
  REQUIRE(run("gradient gray_scott.toml", 2).exit_code == 0);
  const std::map<std::string, std::string> before = files_in(scratch() / "out");
  const std::string replicated = " gradient gray_scott.toml --set time.end=2000.0 --set checkpointing.schedule='\"store_all\"'"
                                 " --set solver.backend='\"omp\"'";
  const CliRun replicated_out_of_memory = with_rank_1_limited(replicated);
  CHECK(replicated_out_of_memory.exit_code == 1);
  CHECK(error_lines(replicated_out_of_memory.err) == 1);
  CHECK(replicated_out_of_memory.err.find("error: rank 1: out of memory") != std::string::npos);
  CHECK(files_in(scratch() / "out") == before);

  // Rank 1 (told apart by a step written differently) is killed once it runs: mpirun ends
  // rank 0, whose signal handlers remove what it had staged.
  const std::string long_run = " gradient fwi_fit.toml --set time.end=60.0";
  const std::string command =
      "cd " + scratch().string() + " && (" + mpirun(1) + program + long_run + " : -np 1 " + program + long_run +
      " --set solver.step=0.01250 >/dev/null 2>&1; echo $? > killed.rc) & "
      "for i in $(seq 100); do pgrep -f '^" + program + ".*0[.]01250' >/dev/null && break; sleep 0.1; done; "
      "sleep 1; pkill -9 -f '^" + program + ".*0[.]01250'; wait";
  REQUIRE(std::system(command.c_str()) == 0);
  const int status = std::stoi(slurp(scratch() / "killed.rc"));
  CHECK(status == 128 + 9);  // mpirun's own code for a rank killed by SIGKILL, not ours to set
  fs::remove(scratch() / "killed.rc");
  CHECK(files_in(scratch() / "out") == before);  // no staging folder or checkpoint file left either
}
