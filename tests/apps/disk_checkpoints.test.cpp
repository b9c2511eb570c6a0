// Two-level checkpointing from the command line: memory for fewer than three slots, the
// rest on disk in a scratch file in the output folder. The gradient is bitwise the one of
// store-all; the volumes are those `plan` prints; the file is gone after success,
// failure and SIGTERM.
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "tests/apps/run_cli.hpp"

namespace fs = std::filesystem;

namespace {

fs::path scratch() { return scratch_folder("disk_checkpoints"); }

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

// The gradient example (Lorenz-63, RK4, 2000 steps, objective with a running cost), its
// [checkpointing] section replaced, writing to out/<name>.
fs::path config(const std::string& name, const std::string& checkpointing,
                const std::string& solver = "") {
  std::ifstream in(std::string(BACKSWEEP_SOURCE_DIR) + "/examples/lorenz63_gradient.toml");
  std::string text{std::istreambuf_iterator<char>(in), {}};
  text = replaced(text, "schedule = \"revolve\"\nslots    = 100", checkpointing);
  text = replaced(text, "out/lorenz63_gradient", "out/" + name);
  if (!solver.empty()) text = replaced(text, "method = \"rk4\"\nstep   = 1e-3", solver);
  const fs::path path = scratch() / (name + ".toml");
  std::ofstream(path) << text;
  return path;
}

bool has_checkpoint_file(const fs::path& folder) {
  if (!fs::exists(folder)) return false;
  for (const auto& entry : fs::directory_iterator(folder))
    if (entry.path().filename().string().starts_with(".backsweep-checkpoints-")) return true;
  return false;
}

nlohmann::json gradient_json(const fs::path& config_path) {
  const CliRun run = run_cli("gradient " + config_path.string() + " --json", scratch());
  CAPTURE(run.err);
  REQUIRE(run.exit_code == 0);
  return nlohmann::json::parse(run.out);
}

// The least memory budget that holds one slot, from the error a smaller one gives.
std::uint64_t least_memory(const std::string& solver) {
  const CliRun run = run_cli(
      "gradient " + config("least", "schedule = \"two_level\"\nmemory = \"1B\"\ndisk = \"1MiB\"", solver).string(),
      scratch());
  CHECK(run.exit_code == 2);
  CHECK(run.err.find("least.toml:") != std::string::npos);
  CHECK(run.err.find("key 'checkpointing.memory': holds no checkpoint slot: at least") != std::string::npos);
  const auto bytes = run.err.find(" bytes)");
  const auto open = run.err.rfind('(', bytes);
  REQUIRE(bytes != std::string::npos);
  REQUIRE(open != std::string::npos);
  return std::stoull(run.err.substr(open + 1, bytes - open - 1));
}

}  // namespace

TEST_CASE("two levels, memory for fewer than three slots: store-all's gradient bitwise, plan's volumes") {
  const std::string adaptive = "method = \"dopri5\"\nrtol = 1e-8\natol = 1e-8";
  for (const std::string& solver : {std::string(), adaptive}) {
    CAPTURE(solver);
    const std::uint64_t least = least_memory(solver);
    const std::string memory = "memory = \"" + std::to_string(least + 100) + "\"\n";  // 2 slots of 96 bytes
    const auto all = gradient_json(config("all", "schedule = \"store_all\"", solver));
    const auto two = gradient_json(config("two", "schedule = \"two_level\"\n" + memory + "disk = \"1MiB\"", solver));
    const auto chosen = gradient_json(config("auto", memory + "disk = \"1MiB\"", solver));
    const auto& d = two["diagnostics"];
    CHECK(d["schedule"] == "two_level");
    CHECK(d["slots"] == 2);
    CHECK(d["disk_slots"].get<std::size_t>() > 100);
    CHECK(two["objective"] == all["objective"]);
    CHECK(two["gradient"] == all["gradient"]);
    // auto: two levels for fixed steps; online for adaptive ones, which need no count.
    CHECK(chosen["diagnostics"]["schedule"] == (solver.empty() ? "two_level" : "online"));
    CHECK(chosen["gradient"] == all["gradient"]);
    CHECK_FALSE(has_checkpoint_file(scratch() / "out/two"));
    CHECK_FALSE(has_checkpoint_file(scratch() / "out/auto"));

    // plan, for the same steps, slots and state (three states and the running cost).
    const CliRun plan =
        run_cli("plan --schedule two_level --steps " + d["steps"].dump() + " --slots 2 --disk-slots " +
                    d["disk_slots"].dump() + " --state-bytes 32 --json",
                scratch());
    REQUIRE(plan.exit_code == 0);
    const auto levels = nlohmann::json::parse(plan.out)["levels"];
    for (const char* level : {"memory", "disk"}) {
      CAPTURE(level);
      CHECK(d["bytes_written"][level] == levels[level]["bytes_written"]);
      CHECK(d["bytes_read"][level] == levels[level]["bytes_read"]);
    }
    CHECK(d["bytes_written"]["disk"].get<std::size_t>() == 32 * d["disk_slots"].get<std::size_t>());
    CHECK(d["recomputed_steps"] == nlohmann::json::parse(plan.out)["recomputed_steps"]);
    CHECK(d["forward_steps"] == nlohmann::json::parse(plan.out)["forward_steps"]);
  }
}

TEST_CASE("a disk budget that holds no slot names its key and what would do") {
  const CliRun run =
      run_cli("gradient " + config("tiny", "schedule = \"two_level\"\nslots = 2\ndisk = \"8B\"").string(), scratch());
  CHECK(run.exit_code == 2);
  CHECK(run.err.find("tiny.toml:") != std::string::npos);
  CHECK(run.err.find(": key 'checkpointing.disk': holds no checkpoint slot: at least \"32B\"") !=
        std::string::npos);
}

TEST_CASE("the checkpoint file is gone after a failed run") {
  // x' = x^2 from 1 blows up at t = 1: a non-finite state, exit 1, after the file was
  // opened (a step unstable from the start would be refused before).
  std::ifstream in(config("fails", "schedule = \"two_level\"\nslots = 2\ndisk = \"1MiB\""));
  std::string text{std::istreambuf_iterator<char>(in), {}};
  std::ofstream(scratch() / "fails.toml") << replaced(
      text, "[model]\nname = \"lorenz63\"",
      "[model]\nstates = [\"x\", \"y\", \"z\"]\nparameters = [\"sigma\", \"rho\", \"beta\"]\n[model.equations]\n"
      "x = \"x^2\"\ny = \"sigma*(x - y)\"\nz = \"rho - beta*z\"");
  const CliRun run = run_cli("gradient fails.toml", scratch());
  CHECK(run.exit_code == 1);
  CHECK(run.err.find("non-finite") != std::string::npos);
  CHECK_FALSE(has_checkpoint_file(scratch() / "out/fails"));
}

TEST_CASE("the checkpoint file is gone after SIGTERM") {
  const fs::path path = config("stopped", "schedule = \"two_level\"\nslots = 2\ndisk = \"1MiB\"");
  {
    std::ifstream in(path);
    std::string text{std::istreambuf_iterator<char>(in), {}};
    // 9e5 steps, seconds of work; rho = 0.5, not chaotic, so the adjoint stays finite.
    std::ofstream(path) << replaced(replaced(text, "end   = 2.0", "end   = 900.0"), "rho   = 28.0",
                                    "rho   = 0.5");
  }
  const fs::path folder = scratch() / "out/stopped";
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    if (::chdir(path.parent_path().c_str()) != 0) ::_exit(127);
    (void)!std::freopen("/dev/null", "w", stderr);
    ::execl(BACKSWEEP_CLI, BACKSWEEP_CLI, "gradient", path.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!has_checkpoint_file(folder) && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  REQUIRE(has_checkpoint_file(folder));
  ::kill(child, SIGTERM);
  int status = 0;
  ::waitpid(child, &status, 0);
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGTERM);
  CHECK_FALSE(has_checkpoint_file(folder));
}
