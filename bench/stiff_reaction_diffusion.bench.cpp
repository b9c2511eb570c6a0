// The stiff 1-D Brusselator (models/builtin/brusselator_1d.hpp) with 10^3 to 10^5
// unknowns: SDIRK4(3) with sparse LU, 10 fixed steps of h = 0.01 (about 10^4 times the
// explicit stability limit at 10^5 unknowns), J = u at the middle, gradient with respect
// to (A, B, alpha) and the initial fields. Prints, per size, gradient time / forward time
// (medians of interleaved runs), and the times of one forward and one adjoint step per
// unknown relative to the smallest size: constant when a step is O(n). Last, the exponent
// of n in the adjoint step's time between the smallest and largest sizes (1: linear).
//   build/bench/bench_stiff_reaction_diffusion
#include <cmath>
#include <cstdio>
#include <vector>

#include "adjoint/discrete_adjoint.hpp"
#include "bench/timing.hpp"
#include "models/builtin/brusselator_1d.hpp"
#include "solvers/dirk_tableaux.hpp"

namespace {

struct Middle {
  std::size_t index;
  template <class T>
  T operator()(const T* y, const T*) const { return y[index]; }
};

}  // namespace

int main() {
  using namespace backsweep;
  std::printf("%9s %6s %17s %26s %25s %25s\n", "unknowns", "steps", "gradient/forward",
              "adjoint step/forward step", "forward step per unknown", "adjoint step per unknown");
  double forward_first = 0, backward_first = 0, unknowns_first = 0, exponent = 0;
  for (std::size_t points : {500, 1600, 5000, 16000, 50000}) {
    const models::Brusselator1D model(points);
    IntegrateOptions options;
    options.t1 = 0.1;
    options.step = 0.01;
    Objective<Middle> objective;
    objective.terminal = Middle{points / 2};
    const GradientProblem<models::Brusselator1D, Objective<Middle>> problem{
        model, tableaux::sdirk4, model.default_initial(), {1.0, 3.0, 0.02}, objective, options};
    GradientResult<double> result;
    std::vector<double> backward;
    const std::vector<double> medians = bench::interleaved_medians(
        {[&] {
           with_stepper<double>(model, problem.method, [&](auto& stepper) {
             std::vector<double> y = problem.y0;
             integrate(stepper, y.data(), problem.p.data(), options);
           });
         },
         [&] {
           result = gradient<double>(problem, problem.y0, problem.p);
           backward.push_back(result.diagnostics.backward_seconds);
         }},
        points <= 5000 ? 7 : 3);
    if (!result.ok()) {
      std::fprintf(stderr, "%zu points: %s\n", points, result.message.c_str());
      return 1;
    }
    const double unknowns = double(model.state_size()), steps = double(result.diagnostics.steps);
    const double forward_step = medians[0] / steps, backward_step = bench::median(backward) / steps;
    if (unknowns_first == 0) {
      forward_first = forward_step / unknowns;
      backward_first = backward_step / unknowns;
      unknowns_first = unknowns;
    }
    exponent = 1.0 + std::log(backward_step / unknowns / backward_first) / std::log(unknowns / unknowns_first);
    std::printf("%9.0f %6.0f %17.2f %26.2f %25.2f %25.2f\n", unknowns, steps, medians[1] / medians[0],
                backward_step / forward_step, forward_step / unknowns / forward_first,
                backward_step / unknowns / backward_first);
  }
  std::printf("adjoint step time ~ n^%.2f\n", exponent);
  return 0;
}
