// Weak scaling of a grid gradient split over ranks (models/grid_block.hpp): Gray–Scott on
// ROWS x NX points a rank, the grid growing with the ranks (ROWS·ranks x NX, periodic),
// STEPS RK4 steps, revolve in 8 slots, one thread a rank. Run it under mpirun with 1 and
// with 2 ranks (bench/mpi_weak_scaling.sh does): rank 0 prints the gradient's seconds
// (best of ROUNDS), nanoseconds per point per step, and the halo exchange's share of the
// gradient (the slowest rank's seconds in exchanges, waiting for its neighbour included).
//   mpirun -np R bench_grid_blocks [ROWS] [NX] [STEPS] [ROUNDS]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "adjoint/discrete_adjoint.hpp"
#include "models/builtin/grid_blocks.hpp"
#include "platform/ranks.hpp"
#include "solvers/rank_algebra.hpp"

using namespace backsweep;

namespace {

// u + v at one point of the whole grid, on the rank that owns it.
struct Probe {
  std::size_t u, points;  // u's index in the block; none past its end
  template <class T>
  T operator()(const T* y, const T*) const {
    return u < points ? y[u] + y[points + u] : T(0);
  }
};

double slowest(double mine) {
  double most = 0.0;
  for (const std::string& bytes : ranks::all_gather(std::string(reinterpret_cast<const char*>(&mine), sizeof mine))) {
    double value = 0.0;
    std::memcpy(&value, bytes.data(), sizeof value);
    most = std::max(most, value);
  }
  return most;
}

}  // namespace

int main(int argc, char** argv) {
  ranks::Session session(argc, argv);
  const std::size_t rows = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 1024;
  const std::size_t nx = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 1024;
  const std::size_t steps = argc > 3 ? std::strtoul(argv[3], nullptr, 10) : 40;
  const int rounds = argc > 4 ? std::atoi(argv[4]) : 3;
  const int count = ranks::count();
  const std::size_t ny = rows * std::size_t(count);
  const Grid grid({ny, nx}, {0.01 * double(ny), 0.01 * double(nx)}, {Boundary::periodic, Boundary::periodic});
  const models::BlockedGrayScott model(GridBlock(grid, ranks::rank(), count));
  const GridBlock& block = model.block();
  const std::size_t n = block.points(), begin = block.first_plane() * nx;

  // A patch of v in the middle of the whole grid, u = 1 - 2v.
  std::vector<double> y0(2 * n);
  for (std::size_t i = 0; i < n; ++i) {
    const double x = double((begin + i) % nx) / double(nx) - 0.5, y = double((begin + i) / nx) / double(ny) - 0.5;
    y0[n + i] = 0.25 * std::exp(-50.0 * (x * x + y * y));
    y0[i] = 1.0 - 2.0 * y0[n + i];
  }
  const std::size_t centre = (ny / 2) * nx + nx / 2;
  const Probe probe{centre >= begin ? centre - begin : n, n};
  IntegrateOptions options;
  options.step = 0.25;
  options.t1 = 0.25 * double(steps);
  using Obj = Objective<Probe>;
  const GradientProblem<models::BlockedGrayScott, Obj> problem{
      model, tableaux::rk4, y0, {8e-5, 4e-5, 0.024, 0.06}, Obj{probe}, options};

  double best = 1e300, halo = 0.0;
  for (int round = 0; round < rounds; ++round) {
    const double halo_before = block.halo_clock().seconds;
    const auto start = std::chrono::steady_clock::now();
    const auto result = gradient<double, RankAlgebra>(problem, problem.y0, problem.p,
                                                      {CheckpointOptions::Schedule::revolve, 8});
    const double seconds = slowest(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    const double in_halo = slowest(block.halo_clock().seconds - halo_before);
    if (!result.ok()) {
      if (ranks::is_root()) std::fprintf(stderr, "the gradient failed: %s\n", result.message.c_str());
      return 1;
    }
    if (seconds < best) best = seconds, halo = in_halo;
  }
  if (ranks::is_root())
    std::printf("ranks %d, %zu x %zu points a rank, %zu steps: %.3f s, %.2f ns a point a step, halo %.1f%% "
                "(%.1f KiB a exchange)\n",
                count, rows, nx, steps, best, 1e9 * best / double(n * steps), 100.0 * halo / best,
                double(nx * sizeof(double)) / 1024.0);
  return 0;
}
