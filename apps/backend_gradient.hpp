#pragma once
// The gradient on the omp backend (solver.backend = "omp") of a grid model: a hand-written
// one on Thrust's OpenMP system, its fields, parameter fields and checkpoints in the
// backend's memory and its device kernels (gpu/) doing the model's work; equations on a
// grid with their kernels on every OpenMP thread and the stage combinations too
// (solvers/openmp_algebra.hpp), and an ODE's equations on that algebra, bitwise the cpu's.
// Only backend_gradient.cpp (grid kernels) and omp_equations_gradient.cpp (equations: the
// engine on another algebra, compiled beside the first) see Thrust and OpenMP.
#include <vector>

#include "adjoint/gradient_problem.hpp"
#include "apps/config_gradient.hpp"
#include "io/assembly/gradient_config.hpp"

namespace backsweep::apps {

// As config_gradient, for a config whose model is a grid kernel (sim.grid_kernel) or
// equations, in adjoint mode. Throws std::logic_error in a build without the
// OpenMP backend (configs asking for it are refused when read).
GradientResult<double> omp_gradient(const GradientConfig& config, const MonitorOptions& monitor,
                                    const std::vector<double>& y0, const std::vector<double>& p,
                                    const GradientObservers& observers, RunProgress* progress);
// omp_gradient's half for equations (sim.expression_model), in builds with the OpenMP backend.
GradientResult<double> omp_equations_gradient(const GradientConfig& config, const MonitorOptions& monitor,
                                              const std::vector<double>& y0, const std::vector<double>& p,
                                              const GradientObservers& observers, RunProgress* progress);

}  // namespace backsweep::apps
