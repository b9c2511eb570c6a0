// Run by mpirun with 1 to 4 ranks (and alone): gradients of grid models split into blocks
// over the ranks, against the whole grid solved by one process (rank 0, plain kernels on
// CpuAlgebra), compared bit for bit. 2-D Gray–Scott (periodic planes) and 3-D heat with a
// conductivity field (Dirichlet planes), every grid model of the registry (grid_kernels.hpp:
// one added later is compared unasked), and a model defined by equations run by its
// compiled kernels (periodic planes, the VJP slab by slab), under store_all, revolve and
// two-level (disk) checkpointing. The reference's own correctness (tangent, differences, Taylor) is
// tests/adjoint/field_kernels_adjoint's and tests/adjoint/grid_adjoint's. Exit 0 when
// every comparison holds.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "adjoint/checkpoint_file.hpp"
#include "adjoint/discrete_adjoint.hpp"
#include "models/builtin/grid_blocks.hpp"
#include "models/builtin/grid_kernels.hpp"
#include "models/equations_block.hpp"
#include "platform/ranks.hpp"
#include "solvers/rank_algebra.hpp"

using namespace backsweep;

namespace {

// The square of field 0 at one point of the whole grid, on the rank that owns it.
struct Probe {
  std::size_t point;  // in the block; none past its end
  std::size_t points;
  template <class T>
  T operator()(const T* y, const T*) const {
    return point < points ? y[point] * y[point] : T(0);
  }
};

std::vector<double> wavy(std::size_t n, double base, double size, double phase) {
  std::vector<double> values(n);
  for (std::size_t i = 0; i < n; ++i) values[i] = base + size * std::sin(0.37 * double(i) + phase);
  return values;
}

// This block's part of a whole-grid vector of `fields` fields.
std::vector<double> part(const std::vector<double>& whole, const GridBlock& block, std::size_t fields) {
  std::vector<double> mine(fields * block.points());
  block.take_part(whole.data(), fields, mine.data());
  return mine;
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

std::vector<CheckpointOptions> schedules(const std::filesystem::path& scratch) {
  using Schedule = CheckpointOptions::Schedule;
  CheckpointOptions two_level{Schedule::two_level, 2};
  two_level.disk_slots = 3;
  two_level.disk_file = checkpoint_files_in(scratch);
  return {{Schedule::store_all}, {Schedule::revolve, 3}, two_level};
}

// The blocked model's gradient under each schedule against the plain model's on the whole
// grid; `p_fields`: 1 where the parameters are a field (heat's k), 0 for scalars.
template <class Plain, class Blocked>
int compare(const char* name, const Plain& plain, const Blocked& blocked, std::size_t fields, std::size_t p_fields,
            const std::vector<double>& y0, const std::vector<double>& p, std::size_t probe,
            const IntegrateOptions& options) {
  const GridBlock& block = blocked.block();
  const Grid& grid = block.grid();
  const std::size_t begin = block.first_plane() * block.plane_points();
  const Probe local_probe{probe >= begin ? probe - begin : block.points(), block.points()};
  const std::vector<double> y0_mine = part(y0, block, fields);
  const std::vector<double> p_mine = p_fields ? part(p, block, 1) : p;
  using Obj = Objective<Probe>;
  const GradientProblem<Blocked, Obj> split{blocked, tableaux::rk4, y0_mine, p_mine, Obj{local_probe}, options};
  const GradientProblem<Plain, Obj> alone{plain, tableaux::rk4, y0, p, Obj{Probe{probe, grid.points()}}, options};
  int failures = 0;
  const std::filesystem::path scratch =
      std::filesystem::temp_directory_path() / ("backsweep-grid-blocks-" + std::to_string(getpid()));
  for (const CheckpointOptions& checkpoints : schedules(scratch)) {
    const auto result = gradient<double, RankAlgebra>(split, split.y0, split.p, checkpoints);
    // The owner's value plus zeros, exactly.
    const double value = RankAlgebra::sum(1, [&](std::size_t) { return result.value; });
    const std::vector<double> dJ_dy0 = block.gather(result.dJ_dy0.data(), fields);
    const std::vector<double> dJ_dp = p_fields ? block.gather(result.dJ_dp.data(), 1) : result.dJ_dp;
    if (!ranks::is_root()) continue;
    const auto reference = gradient<double>(alone, alone.y0, alone.p, checkpoints);
    const bool same = result.ok() && reference.ok() && value == reference.value &&
                      same_bits(dJ_dy0, reference.dJ_dy0) && same_bits(dJ_dp, reference.dJ_dp);
    std::cout << name << ", " << result.diagnostics.schedule << ", " << ranks::count() << " ranks: "
              << (same ? "bitwise the one-process gradient" : "DIFFERS from the one-process gradient")
              << " (J = " << value << ", |dJ/dy0| = " << std::sqrt(squared_norm<CpuAlgebra>(dJ_dy0.size(), dJ_dy0.data()))
              << ")\n";
    failures += same ? 0 : 1;
  }
  std::filesystem::remove_all(scratch);
  return failures;
}

}  // namespace

int main(int argc, char** argv) {
  ranks::Session session(argc, argv);
  const int rank = ranks::rank(), count = ranks::count();
  int failures = 0;
  {
    const Grid grid({24, 20}, {2.5, 2.5}, {Boundary::periodic, Boundary::neumann});
    IntegrateOptions options;
    options.t1 = 8.0;
    options.step = 0.2;
    const std::vector<double> p{8e-3, 4e-3, 0.024, 0.06};
    failures += compare("gray_scott 24 x 20", models::GrayScott(grid), models::BlockedGrayScott(GridBlock(grid, rank, count)),
                        2, 0, wavy(2 * grid.points(), 0.4, 0.2, 0.0), p, 17 * 20 + 5, options);
  }
  {
    const Grid grid({9, 6, 5}, {1.0, 1.0, 1.0}, {Boundary::dirichlet, Boundary::neumann, Boundary::periodic});
    IntegrateOptions options;
    options.t1 = 0.06;
    options.step = 1e-3;
    const models::Heat heat(grid);
    failures += compare("heat 9 x 6 x 5 with k", heat, models::blocked(heat, GridBlock(grid, rank, count)),
                        1, 1, wavy(grid.points(), 0.5, 1.0, 0.5), wavy(grid.points(), 1.0, 0.3, 2.0), 6 * 30 + 2 * 5 + 3,
                        options);
  }
  // Every grid model of the registry, on a 2-D and a 3-D grid with each kind of wall.
  for (const Grid& grid : {Grid({12, 10}, {1.0, 1.1}, {Boundary::dirichlet, Boundary::periodic}),
                           Grid({8, 5, 4}, {1.0, 0.8, 0.6},
                                {Boundary::periodic, Boundary::neumann, Boundary::dirichlet})}) {
    for (const std::string_view name : models::grid_kernel_names) {
      const auto parts = *models::grid_kernel_parts(name, grid);
      const models::GridKernel kernel{std::string(name), parts.layout, {grid.points() / 2 + 3}};
      const std::size_t fields = parts.layout.fields().size(), p_fields = parts.layout.parameter_fields().size();
      std::vector<double> p = p_fields ? wavy(grid.points(), 1.0, 0.3, 2.0) : parts.defaults;
      for (std::size_t j = 0; j < p.size(); ++j)
        if (std::isnan(p[j])) p[j] = 0.1 * double(j + 1);
      IntegrateOptions options;
      options.t1 = 0.05;
      options.step = 1e-3;
      const std::string label = std::string(name) + " on " + std::to_string(grid.axes()) + "-D";
      models::visit_grid_kernel(kernel, [&](const auto& model) {
        failures += compare(label.c_str(), model, models::blocked(model, GridBlock(grid, rank, count)), fields,
                            p_fields, wavy(fields * grid.points(), 0.4, 0.2, 0.0), p, grid.points() / 3, options);
      });
    }
  }
  // Equations: on 24 planes, and on 8, thin blocks of 2 planes whose windows overlap and
  // reach the ghost planes beyond (periodic: one neighbour both sides on 2 ranks).
  for (const Grid& grid : {Grid({24, 20}, {2.5, 2.5}, {Boundary::periodic, Boundary::neumann}),
                           Grid({8, 9}, {1.0, 1.2}, {Boundary::periodic, Boundary::dirichlet}),
                           Grid({8, 9}, {1.0, 1.2}, {Boundary::neumann, Boundary::periodic})}) {
    ExpressionModel model = ExpressionModel::parse(
        FieldEquations(grid, {"u", "v"}, {}, 4), {"D1", "D2", "gamma", "kappa"},
        {"D1*lap(u) - u*v^2 + gamma*(1 - u) + 0.01*sin(y)*dy(u)",
         "D2*lap(v) + u*v^2 - (gamma + kappa)*v + 0.02*dx(v)*dy(u)"});
    model.compile(CompilerOptions{});
    IntegrateOptions options;
    options.t1 = 2.0;
    options.step = 0.1;
    const std::string name = "equations " + std::to_string(grid.size(0)) + " x " + std::to_string(grid.size(1));
    failures += compare(name.c_str(), model, models::BlockedEquations(model, GridBlock(grid, rank, count)), 2, 0,
                        wavy(2 * grid.points(), 0.4, 0.2, 0.0), {8e-3, 4e-3, 0.024, 0.06}, 5 * grid.size(1) + 3,
                        options);
  }
  return failures == 0 ? 0 : 1;
}
