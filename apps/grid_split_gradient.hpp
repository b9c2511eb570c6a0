#pragma once
// A grid kernel's gradient split over the ranks of mpirun: each rank solves one block of
// the grid's planes (models/grid_block.hpp) instead of the whole grid, exchanging halos
// with its neighbours, and the results are put back together in the whole grid's layout
// on every rank, bitwise what one process computes. The config's objective terms are
// evaluated on the whole state, gathered from the blocks where they are taken (the end,
// the observation times); so are the observers' fields.
#include <vector>

#include "apps/config_gradient.hpp"

namespace backsweep::apps {

// Whether `config`'s gradient is split over the ranks: more than one, the Gray–Scott or
// heat kernel, or equations run by compiled kernels on every rank, on 2 or 3 axes with a
// plane for each rank (equations: two, their ghost planes; models/equations_block.hpp),
// not both scalar parameters and parameter fields, backend cpu, the adjoint of an explicit
// method on fixed steps, memory slots counted (a budget in bytes would give blocks of
// different sizes different schedules; a disk budget becomes the largest block's slots),
// and no integral, time events or initial fields that depend on the parameters. Else every
// rank runs it whole. Every rank calls it alike (equations: the ranks agree).
bool splits_grid(const GradientConfig& config);

// config_gradient for a config that splits_grid.
GradientResult<double> split_grid_gradient(const GradientConfig& config, const MonitorOptions& monitor,
                                           const std::vector<double>& y0, const std::vector<double>& p,
                                           const GradientObservers& observers, RunProgress* progress);

}  // namespace backsweep::apps
