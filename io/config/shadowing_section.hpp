#pragma once
// [shadowing], read by gradient when gradient.mode = "shadowing": the derivative of a
// long-time average (objective.integral's integrand, averaged) by NILSS
// (adjoint/shadowing.hpp). What it cannot take is refused at its key: an objective that
// is not a time average, adaptive steps, CVODES, another backend, an ensemble.
#include "io/config/gradient_spec.hpp"
#include "io/config/toml_reader.hpp"

namespace backsweep::detail {

// The run: the steps of solver.step from time.start, the first shadowing.spin_up (default
// a tenth of the span) onto the attractor, the rest in shadowing.segments of
// shadowing.segment_length (default 1). spec.shadowing is set.
void read_shadowing(const TomlSection& root, GradientSpec& spec);

}  // namespace backsweep::detail
