#pragma once
// Bound-constrained minimisation with L-BFGS-B (LBFGSpp), from one given start or from
// several seeded Latin-hypercube starts. The objective may fail at a point (NaN): the line search then
// backs off, and a start that cannot go on keeps the best point it reached.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace backsweep {

struct OptimizerOptions {
  std::size_t max_iterations = 200;
  double gradient_tolerance = 1e-6;  // on the projected gradient, in scaled space
  std::size_t starts = 5;
  std::uint64_t seed = 1;
};

struct StartResult {
  std::vector<double> start, x;
  double objective = 0.0, projected_gradient_norm = 0.0;
  std::size_t iterations = 0, evaluations = 0;
  bool converged = false;
  std::string reason;
};

struct MultistartResult {
  std::vector<StartResult> starts;
  std::size_t best = 0;  // the start with the lowest objective
};

// f(x, gradient) returns the objective and writes the gradient; NaN where it fails.
using FitObjective = std::function<double(const std::vector<double>&, std::vector<double>&)>;
// Called after each step that lowered the objective: start, iteration, objective, the
// projected gradient's norm and the step's length.
using FitProgress = std::function<void(std::size_t, std::size_t, double, double, double)>;

// `points` points in the box, one in each of `points` strata per coordinate.
std::vector<std::vector<double>> latin_hypercube(std::size_t points, const std::vector<double>& lower,
                                                 const std::vector<double>& upper, std::uint64_t seed);

// One run from `start` (a parameter field's fit starts from its prior field); progress
// names it start `index`.
StartResult minimize_from(const FitObjective& f, const std::vector<double>& start, std::size_t index,
                          const std::vector<double>& lower, const std::vector<double>& upper,
                          const OptimizerOptions& options, const FitProgress& progress);

// The starts one after another, all with f.
MultistartResult minimize_multistart(const FitObjective& f, const std::vector<double>& lower,
                                     const std::vector<double>& upper,
                                     const OptimizerOptions& options, const FitProgress& progress);

// for_each_start(count, work) calls work(s) for every start s, in any order or at once
// (a start's result does not depend on the others'). Start s minimises objective_of(s):
// starts run at once need objectives that share no state. progress may be called from
// several threads.
using StartLoop = std::function<void(std::size_t, const std::function<void(std::size_t)>&)>;
// Whether the starts are spread over the ranks of an mpirun (each start's result then reaches
// every rank); their objectives must then not exchange between ranks themselves.
bool spreads_starts(std::size_t starts);
MultistartResult minimize_multistart(const std::function<FitObjective(std::size_t)>& objective_of,
                                     const std::vector<double>& lower, const std::vector<double>& upper,
                                     const OptimizerOptions& options, const FitProgress& progress,
                                     const StartLoop& for_each_start);

}  // namespace backsweep
