#pragma once
// A gradient's result record (GradientOutput, io/outputs/gradient_output.hpp) and the sinks
// `gradient` feeds it to besides gradient.h5: the lines people read, the --json object
// and the VTK fields. Each takes its names and values from the one record.
#include <ostream>

#include <nlohmann/json.hpp>

#include "adjoint/gradient_problem.hpp"
#include "apps/command_io.hpp"
#include "apps/field_outputs.hpp"
#include "io/assembly/gradient_config.hpp"
#include "io/outputs/gradient_output.hpp"

namespace backsweep::apps {

// The record of `result`: the parameters the config reports, and dJ/d(initial state) when
// it asks, by name (on a grid: by field, each a value per point). `device_kernels`: how
// equations ran where a device's kernels ran them (config_gradient's `kernels`).
GradientOutput gradient_record(const GradientConfig& config, const GradientResult<double>& result,
                               double monitor_tolerance, const KernelUse& device_kernels = {});

// "gradient (adjoint, rk4, 400 steps): J = ...", then a line per reported value (on a
// grid: a field's norm and its dataset in gradient.h5).
void print_gradient(const GradientOutput& record, const std::string& method, std::ostream& out);
// Kept for the Python module: the gradient's fields whole, shaped like the grid.
void keep_gradient_arrays(const GradientOutput& record, CommandIO& io);

// {"objective", "gradient": {"parameters", "initial", "parameter_fields"}, "diagnostics"}:
// "initial" when reported, "parameter_fields" on a grid.
nlohmann::json gradient_json(const GradientOutput& record);

// states.pvd and adjoint.pvd from the recorder (adjoint.pvd where there were adjoint
// fields), gradient.pvd from the record, into `folder`; in `pieces` pieces a time for a
// grid split over that many ranks.
void write_gradient_vtk(const std::string& folder, const Grid& grid, const FieldRecorder& recorder,
                        const GradientOutput& record, double t0, int pieces = 1);

}  // namespace backsweep::apps
