#include "fit/multistart.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <stdexcept>

#include <Eigen/Core>
#include <LBFGSB.h>

#include "platform/byte_pack.hpp"
#include "platform/rank_exchange.hpp"
#include "platform/ranks.hpp"

namespace backsweep {

namespace {

double projected_gradient_norm(const std::vector<double>& x, const std::vector<double>& g,
                               const std::vector<double>& lower, const std::vector<double>& upper) {
  double largest = 0.0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double moved = std::clamp(x[i] - g[i], lower[i], upper[i]) - x[i];
    largest = std::max(largest, std::abs(moved));
  }
  return largest;
}

// Every rank's starts on every rank, as their ranks ran them.
void share_starts(std::vector<StartResult>& starts, const std::vector<std::size_t>& here) {
  BytePacker out;
  for (std::size_t s : here) {
    const StartResult& r = starts[s];
    out << s << r.start << r.x << r.objective << r.projected_gradient_norm << r.iterations << r.evaluations
        << r.converged << r.reason;
  }
  const std::vector<std::string> parts = ranks::exchange(out.bytes());
  for (std::size_t rank = 0; rank < parts.size(); ++rank) {
    if (int(rank) == ranks::rank()) continue;
    ByteUnpacker in(parts[rank]);
    while (!in.done()) {
      std::size_t s = 0;
      in >> s;
      StartResult& r = starts.at(s);
      in >> r.start >> r.x >> r.objective >> r.projected_gradient_norm >> r.iterations >> r.evaluations >>
          r.converged >> r.reason;
    }
  }
}

}  // namespace

bool spreads_starts(std::size_t starts) { return starts > 1 && ranks::count() > 1; }

std::vector<std::vector<double>> latin_hypercube(std::size_t points, const std::vector<double>& lower,
                                                 const std::vector<double>& upper, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<std::vector<double>> result(points, std::vector<double>(lower.size()));
  std::vector<std::size_t> strata(points);
  for (std::size_t i = 0; i < lower.size(); ++i) {
    std::iota(strata.begin(), strata.end(), 0);
    std::shuffle(strata.begin(), strata.end(), random);
    for (std::size_t k = 0; k < points; ++k)
      result[k][i] = lower[i] + (upper[i] - lower[i]) * (double(strata[k]) + unit(random)) / double(points);
  }
  return result;
}

StartResult minimize_from(const FitObjective& f, const std::vector<double>& start, std::size_t index,
                          const std::vector<double>& lower, const std::vector<double>& upper,
                          const OptimizerOptions& options, const FitProgress& progress) {
  LBFGSpp::LBFGSBParam<double> param;
  param.epsilon = options.gradient_tolerance;
  param.epsilon_rel = 0.0;
  param.max_iterations = int(options.max_iterations);
  param.max_linesearch = 40;
  const std::size_t n = lower.size();
  const Eigen::Map<const Eigen::VectorXd> lb(lower.data(), Eigen::Index(n)), ub(upper.data(), Eigen::Index(n));

  StartResult run;
  run.start = start;
  run.x = start;
  run.objective = INFINITY;
  std::vector<double> x(n), g(n), best_gradient(n, 0.0);
  // L-BFGS-B sees +Inf where the objective fails; the best point is kept here.
  auto wrapped = [&](const Eigen::VectorXd& at, Eigen::VectorXd& gradient) {
    std::copy(at.data(), at.data() + n, x.begin());
    const double value = f(x, g);
    ++run.evaluations;
    if (!std::isfinite(value)) {
      gradient.setZero();
      return double(INFINITY);
    }
    std::copy(g.begin(), g.end(), gradient.data());
    if (value < run.objective) {
      double step = 0.0;
      for (std::size_t i = 0; i < n; ++i) step += (x[i] - run.x[i]) * (x[i] - run.x[i]);
      run.objective = value;
      run.x = x;
      best_gradient = g;
      if (progress)
        progress(index, run.iterations++, value, projected_gradient_norm(x, g, lower, upper), std::sqrt(step));
    }
    return value;
  };
  // L-BFGS-B also stops where the objective failed (its gradient is zero there), and a
  // line search can give up: such a start goes on from its best point, a few times.
  std::size_t iterations = 0;
  bool converged = false;
  std::string stopped;
  for (int attempt = 0; attempt < 5 && !converged && iterations < options.max_iterations; ++attempt) {
    LBFGSpp::LBFGSBParam<double> remaining = param;
    remaining.max_iterations = int(options.max_iterations - iterations);
    LBFGSpp::LBFGSBSolver<double> solver(remaining);
    const std::vector<double>& from = attempt == 0 ? start : run.x;
    Eigen::VectorXd point = Eigen::Map<const Eigen::VectorXd>(from.data(), Eigen::Index(n));
    double fx = 0.0;
    try {
      const int used = solver.minimize(wrapped, point, fx, lb, ub);
      iterations += std::size_t(used);
      converged = std::isfinite(fx) && used < remaining.max_iterations;
    } catch (const std::exception& error) {
      stopped = std::string("line search stopped: ") + error.what();
      ++iterations;
    }
    converged = converged || (std::isfinite(run.objective) &&
                              projected_gradient_norm(run.x, best_gradient, lower, upper) <=
                                  options.gradient_tolerance);
  }
  run.projected_gradient_norm = projected_gradient_norm(run.x, best_gradient, lower, upper);
  run.converged = converged && std::isfinite(run.objective);
  run.reason = run.converged                           ? "gradient tolerance reached"
               : !std::isfinite(run.objective)         ? "the objective failed at every point tried"
               : iterations >= options.max_iterations ? "maximum iterations reached"
                                                       : stopped;
  return run;
}

MultistartResult minimize_multistart(const std::function<FitObjective(std::size_t)>& objective_of,
                                     const std::vector<double>& lower, const std::vector<double>& upper,
                                     const OptimizerOptions& options, const FitProgress& progress,
                                     const StartLoop& for_each_start) {
  const std::vector<std::vector<double>> starts = latin_hypercube(options.starts, lower, upper, options.seed);
  MultistartResult result;
  result.starts.resize(starts.size());
  // With an mpirun's ranks, start s runs on rank s mod their count.
  std::vector<std::size_t> here;
  for (std::size_t s = 0; s < starts.size(); ++s)
    if (!spreads_starts(starts.size()) || s % std::size_t(ranks::count()) == std::size_t(ranks::rank()))
      here.push_back(s);
  for_each_start(here.size(), [&](std::size_t j) {
    const std::size_t s = here[j];
    StartResult& run = result.starts[s];
    try {  // a start may run on a thread that must not throw
      run = minimize_from(objective_of(s), starts[s], s, lower, upper, options, progress);
    } catch (const std::exception& error) {
      run.start = run.x = starts[s];
      run.objective = INFINITY;
      run.reason = std::string("the objective threw: ") + error.what();
    }
  });
  if (spreads_starts(starts.size())) share_starts(result.starts, here);
  for (std::size_t s = 1; s < result.starts.size(); ++s)
    if (result.starts[s].objective < result.starts[result.best].objective) result.best = s;
  return result;
}

MultistartResult minimize_multistart(const FitObjective& f, const std::vector<double>& lower,
                                     const std::vector<double>& upper,
                                     const OptimizerOptions& options, const FitProgress& progress) {
  return minimize_multistart([&](std::size_t) { return f; }, lower, upper, options, progress,
                             [](std::size_t count, const std::function<void(std::size_t)>& work) {
                               for (std::size_t s = 0; s < count; ++s) work(s);
                             });
}

}  // namespace backsweep
