#pragma once
// What the commands write for a model on a grid: gradients as named fields (HDF5, JSON),
// and the VTK series ParaView opens (states, adjoint fields, gradient fields).
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/simulate_config.hpp"
#include "io/vtk/vtk_series.hpp"

namespace backsweep::apps {

// The fields stored one after another in `values` (points values each), by name.
std::vector<NamedField> split_fields(const std::vector<std::string>& names, const double* values, std::size_t points);

// The times at which state and adjoint fields are written: the output times, with the
// start and the end.
std::vector<double> field_output_times(const SimulateConfig& config);

// {"<name>": {"norm": |values|, "dataset": "<group>/<name>"}} for each field.
nlohmann::json field_norms_json(const std::vector<NamedField>& fields, const std::string& group);

}  // namespace backsweep::apps
