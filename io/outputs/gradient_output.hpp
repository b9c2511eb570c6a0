#pragma once
// What `gradient` writes: <dir>/gradient.h5 with the objective, the gradient by name, the
// diagnostics, and the growth monitor's verdict, history and magnitude histograms
// (written to a temporary name and renamed into place).
#include <string>
#include <vector>

#include "io/outputs/event_record.hpp"
#include "adjoint/gradient_problem.hpp"
#include "io/outputs/diagnostics_record.hpp"
#include "io/outputs/named_field.hpp"
#include "platform/run_info.hpp"

namespace backsweep {

struct GradientOutput {
  std::string model, mode;
  double objective = 0.0;
  std::vector<std::string> parameter_names, state_names;  // those reported
  std::vector<double> dJ_dp, dJ_dy0;                      // in the same order
  GradientDiagnostics diagnostics;
  double monitor_tolerance = 0.0;
  // On a grid: the grid's shape, and dJ/d(initial field) and dJ/d(parameter field) by
  // name, each with a value per point (array order).
  std::vector<std::size_t> grid_shape;
  std::vector<NamedField> initial_fields, parameter_fields;
  KernelUse kernels;  // of a model defined by equations
  std::vector<EventRecord> events;  // the time events taken (/events)
};

// Layout: root attributes objective, model, mode; /gradient/parameters and
// /gradient/initial (with attribute names), or on a grid /gradient/initial/<field> and
// /gradient/parameter_fields/<name>, each shaped like the grid; /diagnostics (attributes); /monitor
// (attributes verdict, growth_rate, amplification, horizon, ...; datasets time,
// log_adjoint_norm, gradient_norm); /monitor/histograms (interval_times,
// decade_exponents, counts [intervals x bins]).
void write_gradient_hdf5(const GradientOutput& output, const std::string& path, const RunInfo& run);

}  // namespace backsweep
