// Ensemble gradients per second: 10^4 Lorenz-63 members (J = z(1)), fixed RK4 steps of
// 0.01 and adaptive Dormand-Prince (rtol 1e-8), members one after another on the CPU
// backend against members in parallel on Thrust's OpenMP system (OMP_NUM_THREADS
// threads); medians of interleaved runs, as ratios in one run.
//   build/bench/bench_ensemble_lorenz_omp
#include <cstdio>
#include <random>
#include <vector>

#include "bench/timing.hpp"
#include "gpu/ensemble.hpp"
#include "models/builtin/lorenz63.hpp"

namespace {

using namespace backsweep;

struct FinalZ {
  template <class T>
  T operator()(const T* y, const T*) const {
    return y[2];
  }
};

}  // namespace

int main() {
  constexpr std::size_t kMembers = 10000;
  std::mt19937_64 random(7);
  std::uniform_real_distribution<double> jitter(-0.1, 0.1);
  std::vector<gpu::EnsembleMember> members(kMembers);
  for (auto& m : members) {
    m.y0 = {1.0 + jitter(random), 1.0 + jitter(random), 1.0 + jitter(random)};
    m.p = {10.0 * (1 + jitter(random)), 28.0 * (1 + jitter(random)), 8.0 / 3.0 * (1 + jitter(random))};
  }
  const models::Lorenz63 model;
  std::printf("%10s %16s %16s %12s\n", "steps", "CPU grad/s", "OpenMP grad/s", "OpenMP/CPU");
  for (const bool adaptive : {false, true}) {
    IntegrateOptions options;
    if (adaptive) options.rtol = 1e-8, options.atol = 1e-10;
    else options.step = 0.01;
    const GradientProblem<models::Lorenz63, Objective<FinalZ>> problem{
        model, adaptive ? Method(tableaux::dopri5) : Method(tableaux::rk4), {}, {}, Objective<FinalZ>{}, options};
    const std::vector<double> seconds = bench::interleaved_medians(
        {[&] {
           for (const auto& m : members) gradient<double>(problem, m.y0, m.p);
         },
         [&] {
           gpu::ensemble_gradients(problem, members);
         }},
        5);
    std::printf("%10s %16.0f %16.0f %12.2f\n", adaptive ? "adaptive" : "fixed", kMembers / seconds[0],
                kMembers / seconds[1], seconds[0] / seconds[1]);
  }
}
