// Ensemble gradients per second: 10^4 Lorenz-63 members (J = z(1)), fixed RK4 steps of
// 0.01 and adaptive Dormand-Prince (rtol 1e-8), members one after another on the CPU
// backend against members in parallel on Thrust's device system; medians of interleaved
// runs, as ratios in one run.
//   - OpenMP (OMP_NUM_THREADS threads): the engine a member (ensemble_gradients), and
//     the member sweep a thread (member_gradients, gpu/member_sweep.hpp);
//   - CUDA: the member sweep a GPU thread (scripts/gpu_check.sh), and how far its
//     gradients are from the CPU backend's.
//   build/bench/bench_ensemble_lorenz_omp [members]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <utility>
#include <vector>

#include "bench/timing.hpp"
#include "gpu/ensemble.hpp"
#include "gpu/member_sweep.hpp"
#include "models/builtin/lorenz63.hpp"
#include "tests/gpu/backend_checks.hpp"

using namespace backsweep;
using testing::FinalZ;

int main(int argc, char** argv) {
  const std::size_t count = argc > 1 ? std::size_t(std::atol(argv[1])) : 10000;
  const auto members = testing::spread_lorenz_members(count);
  const models::Lorenz63 model;
  const char* backend = BACKSWEEP_THRUST_CUDA ? "CUDA" : "OpenMP";
  std::printf("%zu Lorenz-63 members; gradients per second, and the %s backend / the CPU backend\n", count,
              backend);
  std::printf("%10s %14s %18s %18s %14s %14s %12s\n", "steps", "CPU grad/s", "engine/thread", "sweep/thread",
              "engine speedup", "sweep speedup", "max rel diff");
  for (const bool adaptive : {false, true}) {
    IntegrateOptions options;
    if (adaptive) options.rtol = 1e-8, options.atol = 1e-10;
    else options.step = 0.01;
    const GradientProblem<models::Lorenz63, Objective<FinalZ>> problem{
        model, adaptive ? Method(tableaux::dopri5) : Method(tableaux::rk4), {}, {}, Objective<FinalZ>{}, options};
    std::vector<GradientResult<double>> on_cpu(count), by_sweep;
    std::vector<std::function<void()>> runs{
        [&] {
          for (std::size_t b = 0; b < count; ++b) on_cpu[b] = gradient<double>(problem, members[b].y0, members[b].p);
        },
        [&] { by_sweep = gpu::member_gradients(problem, members); }};
    if (!BACKSWEEP_THRUST_CUDA) runs.push_back([&] { gpu::ensemble_gradients(problem, members); });
    const std::vector<double> seconds = bench::interleaved_medians(runs, 5);
    double difference = 0.0;
    for (std::size_t b = 0; b < count; ++b) {
      if (!on_cpu[b].ok() || !by_sweep[b].ok()) {
        std::printf("member %zu failed: %s %s\n", b, on_cpu[b].message.c_str(), by_sweep[b].message.c_str());
        return 1;
      }
      // Each gradient's largest difference relative to its largest component.
      for (const auto& [got, expected] : {std::pair(&by_sweep[b].dJ_dp, &on_cpu[b].dJ_dp),
                                          std::pair(&by_sweep[b].dJ_dy0, &on_cpu[b].dJ_dy0)}) {
        double largest = 0.0, differs = 0.0;
        for (std::size_t j = 0; j < 3; ++j) {
          largest = std::max(largest, std::abs((*expected)[j]));
          differs = std::max(differs, std::abs((*got)[j] - (*expected)[j]));
        }
        difference = std::max(difference, differs / largest);
      }
    }
    char engine[2][32] = {"-", "-"};  // the engine a member: OpenMP only
    if (seconds.size() > 2) {
      std::snprintf(engine[0], sizeof engine[0], "%.0f", double(count) / seconds[2]);
      std::snprintf(engine[1], sizeof engine[1], "%.2f", seconds[0] / seconds[2]);
    }
    std::printf("%10s %14.0f %18s %18.0f %14s %14.2f %12.1e\n", adaptive ? "adaptive" : "fixed",
                double(count) / seconds[0], engine[0], double(count) / seconds[1], engine[1], seconds[0] / seconds[1],
                difference);
    std::fflush(stdout);
  }
}
