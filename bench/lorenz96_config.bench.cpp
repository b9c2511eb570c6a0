// Lorenz-96 defined in a config file (N states, forcing F), rk4, 100 steps,
// J = sum_i x_i(T)^2, gradient with respect to F and the initial state, N = 40 ... 2560.
// The config is read by the same code as `backsweep gradient` (io/), so the model's VJPs
// and the objective's gradient are taken the way the command takes them. Prints, per N,
// gradient time / forward time (medians of interleaved runs) and the time of one adjoint
// step per state relative to N = 40: constant when an adjoint step is O(N).
//   build/bench/bench_lorenz96_config
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "adjoint/discrete_adjoint.hpp"
#include "bench/timing.hpp"
#include "io/assembly/config_objective.hpp"
#include "io/assembly/gradient_config.hpp"
#include "models/expression_model.hpp"

namespace {

std::string lorenz96_config(int n) {
  auto x = [n](int i) { return std::string("x").append(std::to_string(((i % n) + n) % n)); };
  std::string states, equations, initial, terminal;
  for (int i = 0; i < n; ++i) {
    states.append(i ? ", \"" : "\"").append(x(i)).append("\"");
    equations.append(x(i)).append(" = \"(").append(x(i + 1)).append(" - ").append(x(i - 2));
    equations.append(")*").append(x(i - 1)).append(" - ").append(x(i)).append(" + F\"\n");
    initial.append(x(i)).append(" = ").append(std::to_string(8.0 + 0.01 * std::sin(double(i))));
    initial.append("\n");
    terminal.append(i ? " + " : "").append(x(i)).append("^2");
  }
  return "[model]\nstates = [" + states + "]\nparameters = [\"F\"]\n[model.equations]\n" +
         equations + "[parameters]\nF = 8.0\n[initial]\n" + initial +
         "[time]\nend = 0.1\n[solver]\nmethod = \"rk4\"\nstep = 1e-3\n[objective]\nterminal = \"" +
         terminal + "\"\n[gradient]\nmode = \"adjoint\"\n";
}

}  // namespace

int main() {
  using namespace backsweep;
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "backsweep_lorenz96";
  std::filesystem::create_directories(dir);
  std::printf("%6s %18s %22s %26s\n", "N", "gradient/forward", "adjoint step/forward step",
              "adjoint step per state");
  double per_state_40 = 0;
  for (int n : {40, 160, 640, 2560}) {
    const std::string path = (dir / ("lorenz96_" + std::to_string(n) + ".toml")).string();
    std::ofstream(path) << lorenz96_config(n);
    const GradientConfig config = load_gradient_config(path);
    const SimulateConfig& sim = config.simulate;
    GradientResult<double> result;
    std::vector<double> medians, backward;
    const ExpressionModel& model = *sim.expression_model;  // the engine for this model alone
    visit_config_objective(config, [&](const auto& objective) {
      using M = ExpressionModel;
      using Obj = std::remove_cvref_t<decltype(objective)>;
      const GradientProblem<M, Obj> problem{model, sim.method, sim.initial_state,
                                            sim.parameters, objective, sim.integrate};
      medians = bench::interleaved_medians(
          {[&] {
             with_stepper<double>(model, sim.method, [&](auto& stepper) {
               std::vector<double> y = sim.initial_state;
               integrate(stepper, y.data(), sim.parameters.data(), sim.integrate);
             });
           },
           [&] {
             result = gradient<double>(problem, problem.y0, problem.p, config.checkpointing.options);
             backward.push_back(result.diagnostics.backward_seconds);
           }},
          n <= 640 ? 15 : 7);
    });
    if (!result.ok()) {
      std::fprintf(stderr, "N = %d: %s\n", n, result.message.c_str());
      return 1;
    }
    const double forward = medians[0], total = medians[1];
    const double steps = double(result.diagnostics.steps);
    // The backward sweep's own time, as the gradient reports it (median over the runs).
    const double backward_step = bench::median(backward) / steps;
    const double per_state = backward_step / n;
    if (n == 40) per_state_40 = per_state;
    std::printf("%6d %18.2f %22.2f %26.2f   (derivatives: %s)\n", n, total / forward,
                backward_step / (forward / steps), per_state / per_state_40,
                result.diagnostics.derivatives.c_str());
  }
  std::filesystem::remove_all(dir);
  return 0;
}
