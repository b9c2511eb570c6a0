// The same Lorenz-63 gradient (rk4, 10^6 steps, J = z(T), dJ/dp and dJ/dy0 by the adjoint,
// store-all) through the command line, `backsweep gradient CONFIG --json` as a whole
// process (start-up, config, HDF5 output included), and through the C++ API: a program
// making that one call (this one, run again as `bench_cli_vs_api api`), and a call in a
// process that made it before. Prints the ratios of their medians over interleaved runs:
// what the command costs on top of a program, and on top of a warm call (whose store's
// 96 MB are mapped already: a fresh process, the command's or a program's, maps them anew).
//   build/bench/bench_cli_vs_api
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "adjoint/discrete_adjoint.hpp"
#include "bench/timing.hpp"
#include "models/builtin/lorenz63.hpp"

namespace {

struct FinalZ {
  template <class T>
  T operator()(const T* y, const T*) const {
    return y[2];
  }
};

constexpr const char* kConfig = R"([model]
name = "lorenz63"
[initial]
x = 1.0
y = 1.0
z = 1.0
[time]
end = 10.0
[solver]
method = "rk4"
step = 1e-5
max_steps = 2000000
[objective]
terminal = "z"
[gradient]
mode = "adjoint"
[output]
dir = "out"
)";

}  // namespace

int main(int argc, char** argv) {
  using namespace backsweep;
  const bool program = argc > 1 && std::string(argv[1]) == "api";  // one call, then exit
  const models::Lorenz63 model;
  IntegrateOptions options;
  options.t1 = 10.0;
  options.step = 1e-5;
  options.max_steps = 2'000'000;
  const Objective<FinalZ> objective;
  const GradientProblem<models::Lorenz63, Objective<FinalZ>> problem{
      model, tableaux::rk4, {1.0, 1.0, 1.0}, {10.0, 28.0, 8.0 / 3.0}, objective, options};
  if (program) return gradient<double>(problem, problem.y0, problem.p).ok() ? 0 : 1;

  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "backsweep_cli_vs_api";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "lorenz63.toml") << kConfig;
  const std::string command = "cd " + dir.string() + " && " + BACKSWEEP_CLI +
                              " gradient lorenz63.toml --json > result.json 2> /dev/null";
  GradientResult<double> result;
  const std::string program_command = std::string(argv[0]) + " api";
  int status = 0;
  const std::vector<double> medians = bench::interleaved_medians(
      {[&] { status |= std::system(command.c_str()); },
       [&] { status |= std::system(program_command.c_str()); },
       [&] { result = gradient<double>(problem, problem.y0, problem.p); }},
      7);
  std::filesystem::remove_all(dir);
  if (status != 0 || !result.ok()) {
    std::fprintf(stderr, "a run failed\n");
    return 1;
  }
  std::printf("Lorenz-63, rk4, %zu steps: command line / C++ program = %.2f, command line / warm C++ call = %.2f "
              "(dJ/drho %.10g)\n",
              result.diagnostics.steps, medians[0] / medians[1], medians[0] / medians[2], result.dJ_dp[1]);
  return 0;
}
