#include "apps/simulate_report.hpp"

#include <algorithm>

#include "apps/field_outputs.hpp"

namespace backsweep::apps {

namespace {

// On a grid: the times, and per field its range at the last time (the fields themselves
// are in trajectory.h5, /fields/<name>).
nlohmann::json fields_json(const Trajectory& trajectory, const GridLayout& fields) {
  nlohmann::json json = nlohmann::json::object();
  const std::size_t points = fields.grid().points(), n = trajectory.state_names.size();
  const double* last = trajectory.states.data() + (trajectory.times.size() - 1) * n;
  for (const NamedField& field : split_fields(fields.fields(), last, points)) {
    const auto [low, high] = std::minmax_element(field.values.begin(), field.values.end());
    json[field.name] = {{"final_min", *low}, {"final_max", *high}};
  }
  return {{"times", trajectory.times}, {"fields", json}};
}

nlohmann::json to_json(const Trajectory& trajectory) {
  nlohmann::json states = nlohmann::json::object();
  const std::size_t n = trajectory.state_names.size();
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<double> column;
    for (std::size_t row = 0; row < trajectory.times.size(); ++row)
      column.push_back(trajectory.states[row * n + i]);
    states[trajectory.state_names[i]] = column;
  }
  return {{"times", trajectory.times}, {"states", states}};
}

}  // namespace

Trajectory empty_trajectory(const SimulateConfig& config) {
  Trajectory trajectory;
  trajectory.model = config.model;
  trajectory.method = std::string(config.method.name());
  trajectory.state_names = config.state_names;
  trajectory.parameter_names = config.parameter_names;
  trajectory.parameters = config.parameters;
  trajectory.events = event_records(config.integrate);
  if (const GridLayout* fields = config.fields()) {  // fields by name; the scalar parameters
    trajectory.field_names = fields->fields();
    trajectory.grid_shape = fields->grid().shape();
    trajectory.parameter_names = config.scalar_parameter_names();
    trajectory.parameters.resize(trajectory.parameter_names.size());
  }
  return trajectory;
}

nlohmann::json simulate_json(const Trajectory& trajectory, const GridLayout* fields) {
  return fields ? fields_json(trajectory, *fields) : to_json(trajectory);
}

void write_state_fields(const std::string& folder, const SimulateConfig& config, const Trajectory& trajectory) {
  const GridLayout& fields = *config.fields();
  std::vector<FieldSnapshot> snapshots;
  const std::size_t n = trajectory.state_names.size();
  const std::vector<NamedField> constant = parameter_fields(fields, config.parameters);
  for (std::size_t k = 0; k < trajectory.times.size(); ++k) {
    snapshots.push_back({trajectory.times[k], split_fields(fields.fields(), trajectory.states.data() + k * n,
                                                           fields.grid().points())});
    snapshots.back().fields.insert(snapshots.back().fields.end(), constant.begin(), constant.end());
  }
  write_vtk_series(folder, "states", fields.grid(), snapshots);
}

void keep_trajectory_arrays(const Trajectory& trajectory, CommandIO& io) {
  if (!io.keep) return;  // no copies for the program
  const std::size_t rows = trajectory.times.size(), width = trajectory.state_names.size();
  io.keep_array("times", {rows}, trajectory.times);
  const bool grid = !trajectory.grid_shape.empty();
  const std::vector<std::string>& names = grid ? trajectory.field_names : trajectory.state_names;
  const std::size_t points = width / std::max<std::size_t>(names.size(), 1);
  std::vector<std::size_t> shape{rows};
  if (grid) shape.insert(shape.end(), trajectory.grid_shape.begin(), trajectory.grid_shape.end());
  for (std::size_t k = 0; k < names.size(); ++k) {
    std::vector<double> values;
    values.reserve(rows * points);
    for (std::size_t row = 0; row < rows; ++row) {
      const double* start = trajectory.states.data() + row * width + k * points;
      values.insert(values.end(), start, start + points);
    }
    io.keep_array((grid ? "fields/" : "states/") + names[k], shape, std::move(values));
  }
}

}  // namespace backsweep::apps
