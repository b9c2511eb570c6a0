#pragma once
// A computed trajectory and how it is written: CSV (one row per time) and HDF5
// (/time [m], /states [m x n], metadata as attributes). On a grid (grid_shape set) the
// HDF5 file holds /fields/<name> [m, grid shape...] instead, and no CSV is written. Files are written to a
// temporary name and renamed into place, so a failure never leaves half a file or
// destroys an earlier result.
#include <cstddef>
#include <string>
#include <vector>

#include "io/outputs/event_record.hpp"
#include "platform/run_info.hpp"

namespace backsweep {

struct Trajectory {
  std::string model, method;
  std::vector<std::string> state_names, parameter_names;
  std::vector<double> parameters;
  std::vector<double> times;
  std::vector<double> states;  // row-major, times.size() x state_names.size()
  // On a grid: the state is these fields one after another, each shaped like the grid.
  std::vector<std::string> field_names;
  std::vector<std::size_t> grid_shape;
  std::vector<EventRecord> events;  // the time events taken (HDF5: /events)

  void append(double t, const double* y) {
    times.push_back(t);
    states.insert(states.end(), y, y + state_names.size());
  }
};

// Each throws std::runtime_error naming the path when the file cannot be written.
void write_trajectory_csv(const Trajectory& trajectory, const std::string& path);
void write_trajectory_hdf5(const Trajectory& trajectory, const std::string& path, const RunInfo& run);
// <dir>/trajectory.csv and <dir>/trajectory.h5: both are written completely before
// either is moved into place (the HDF5 file first); on a grid only the HDF5 file.
void write_trajectory_files(const Trajectory& trajectory, const std::string& dir, const RunInfo& run);

}  // namespace backsweep
