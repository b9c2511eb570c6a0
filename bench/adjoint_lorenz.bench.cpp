// Gradient cost of RK4 on Lorenz-63 over 10^5 steps: gradient time / forward time (medians
// of interleaved runs) and peak memory, for one checkpoint schedule per process (peak RSS
// is per process).
//   build/bench/bench_adjoint_lorenz store_all
//   build/bench/bench_adjoint_lorenz revolve 100
// bench/adjoint_lorenz.sh runs both and prints the table.
#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "adjoint/discrete_adjoint.hpp"
#include "bench/timing.hpp"
#include "models/builtin/lorenz63.hpp"
#include "solvers/explicit_rk.hpp"
#include "solvers/integrate.hpp"

namespace {

struct FinalZ {
  template <class T>
  T operator()(const T* y, const T*) const {
    return y[2];
  }
};

}  // namespace

int main(int argc, char** argv) {
  using namespace backsweep;
  const std::string mode = argc > 1 ? argv[1] : "store_all";
  const std::size_t slots = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 100;
  constexpr std::size_t kSteps = 100'000;
  const models::Lorenz63 model;
  IntegrateOptions options;
  options.step = 1e-4;
  options.t1 = kSteps * options.step;
  Objective<FinalZ> objective;
  const GradientProblem<models::Lorenz63, Objective<FinalZ>> problem{
      model, tableaux::rk4, {1.0, 1.0, 1.0}, {10.0, 28.0, 8.0 / 3.0}, objective, options};
  CheckpointOptions checkpointing;
  checkpointing.schedule = mode == "revolve" ? CheckpointOptions::Schedule::revolve
                                             : CheckpointOptions::Schedule::store_all;
  if (mode == "revolve") checkpointing.slots = slots;

  GradientResult<double> result;
  const std::vector<double> medians = bench::interleaved_medians(
      {[&] {
         ExplicitRK stepper(model, tableaux::rk4);
         std::vector<double> y = problem.y0;
         integrate(stepper, y.data(), problem.p.data(), options);
       },
       [&] { result = gradient<double>(problem, problem.y0, problem.p, checkpointing); }},
      21);
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  std::printf("%-9s slots=%-6zu steps=%zu forward steps=%zu (x%.2f of one sweep)  "
              "gradient/forward=%.2f  peak RSS=%.1f MiB  dJ/drho=%.6e\n",
              mode.c_str(), result.diagnostics.slots, result.diagnostics.steps,
              result.diagnostics.forward_steps,
              double(result.diagnostics.forward_steps) / double(kSteps), medians[1] / medians[0],
              double(usage.ru_maxrss) / 1024.0, result.dJ_dp[1]);
  return result.ok() ? 0 : 1;
}
