#pragma once
// Gradient verification as a library feature (like Ceres' GradientChecker and
// pyadjoint's taylor_test). Neither function changes the problem.
//
// check_gradient: the adjoint gradient against the forward tangent (exact: they must
//   agree to round-off) and against central finite differences of the same discrete
//   solve (step sequence frozen), component by component.
// taylor_test: for a direction v, the remainder |J(x + e v) - J(x) - e dJ.v| must fall
//   like e^2; the observed rates are reported.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <sstream>
#include <string>
#include <vector>

#include "adjoint/discrete_adjoint.hpp"
#include "adjoint/forward_tangent.hpp"

namespace backsweep {

namespace detail {
// max and min that keep a NaN (std::max/std::min silently drop it).
inline double nan_max(double a, double b) { return std::isnan(b) || b > a ? b : a; }
inline double nan_min(double a, double b) { return std::isnan(b) || b < a ? b : a; }
}  // namespace detail

struct ComponentCheck {
  std::string name;  // "p[2]" or "y0[0]"
  double adjoint = 0, tangent = 0, finite_difference = 0;
};

struct GradientCheckReport {
  bool ok = false;
  // Largest |difference| / max(|adjoint gradient|) over all components.
  double adjoint_vs_tangent = 0, adjoint_vs_finite_difference = 0;
  std::vector<ComponentCheck> components;
  std::string message;
};

// The magnitude of a vector's largest component, at least 1e-2: a finite-difference scale.
inline double typical(const std::vector<double>& x) {
  double largest = 1e-2;
  for (double v : x) largest = std::max(largest, std::abs(v));
  return largest;
}

template <Model M, class Obj>
GradientCheckReport check_gradient(const GradientProblem<M, Obj>& problem,
                                   double tangent_tolerance = 1e-10,
                                   double finite_difference_tolerance = 1e-5) {
  GradientCheckReport report;
  const GradientResult<double> adjoint = gradient<double>(problem, problem.y0, problem.p);
  const GradientResult<double> tangent = tangent_gradient(problem);
  StepSequence sequence;
  if (!adjoint.ok() || !tangent.ok() || !problem_step_sequence(problem, sequence).ok()) {
    report.message = "the solve failed: " + adjoint.message + tangent.message;
    return report;
  }
  const std::size_t np = problem.p.size(), n = problem.y0.size();
  const bool through_y0 = !Obj::has_initial;
  double scale = 0;
  for (double g : adjoint.dJ_dp) scale = std::max(scale, std::abs(g));
  if (through_y0)
    for (double g : adjoint.dJ_dy0) scale = std::max(scale, std::abs(g));
  scale = std::max(scale, 1e-300);

  for (std::size_t column = 0; column < np + (through_y0 ? n : 0); ++column) {
    const bool parameter = column < np;
    const std::size_t index = parameter ? column : column - np;
    std::vector<double> y0 = problem.y0, p = problem.p;
    double& x = parameter ? p[index] : y0[index];
    // A zero component steps like the others of its vector: a step of 1e-8 would show
    // the solver's round-off (an implicit method's Newton residual) amplified 10^8 times.
    const double x0 = x,
                 h = 1e-6 * (x0 != 0.0 ? std::max(std::abs(x0), 1e-2) : typical(parameter ? problem.p : problem.y0));
    x = x0 + h;
    const double plus = objective_value(problem, y0, p, sequence);
    x = x0 - h;
    const double minus = objective_value(problem, y0, p, sequence);
    ComponentCheck c;
    c.name = (parameter ? "p[" : "y0[") + std::to_string(index) + "]";
    c.adjoint = parameter ? adjoint.dJ_dp[index] : adjoint.dJ_dy0[index];
    c.tangent = parameter ? tangent.dJ_dp[index] : tangent.dJ_dy0[index];
    c.finite_difference = (plus - minus) / (2 * h);
    report.adjoint_vs_tangent =
        detail::nan_max(report.adjoint_vs_tangent, std::abs(c.adjoint - c.tangent) / scale);
    report.adjoint_vs_finite_difference = detail::nan_max(
        report.adjoint_vs_finite_difference, std::abs(c.adjoint - c.finite_difference) / scale);
    report.components.push_back(c);
  }
  report.ok = report.adjoint_vs_tangent <= tangent_tolerance &&
              report.adjoint_vs_finite_difference <= finite_difference_tolerance;
  std::ostringstream message;
  message << "adjoint vs tangent " << report.adjoint_vs_tangent << ", vs finite differences "
          << report.adjoint_vs_finite_difference << " (relative to the largest component)";
  report.message = message.str();
  return report;
}

struct TaylorTestReport {
  std::vector<double> epsilons, remainders, rates;
  double min_rate = 0;
  bool ok = false;  // min_rate >= 1.95
};

// Direction v = (v_p, v_y0) (v_y0 may be empty).
template <Model M, class Obj>
TaylorTestReport taylor_test(const GradientProblem<M, Obj>& problem,
                             const std::vector<double>& v_p, std::vector<double> v_y0 = {},
                             double first_epsilon = 1e-2, int levels = 5) {
  TaylorTestReport report;
  v_y0.resize(problem.y0.size(), 0.0);
  const GradientResult<double> adjoint = gradient<double>(problem, problem.y0, problem.p);
  StepSequence sequence;
  if (!adjoint.ok() || !problem_step_sequence(problem, sequence).ok()) return report;
  double slope = 0;
  for (std::size_t j = 0; j < v_p.size(); ++j) slope += adjoint.dJ_dp[j] * v_p[j];
  if (!Obj::has_initial)
    for (std::size_t i = 0; i < v_y0.size(); ++i) slope += adjoint.dJ_dy0[i] * v_y0[i];
  const double base = objective_value(problem, problem.y0, problem.p, sequence);
  double epsilon = first_epsilon;
  for (int level = 0; level < levels; ++level, epsilon /= 2) {
    std::vector<double> y0 = problem.y0, p = problem.p;
    for (std::size_t j = 0; j < p.size(); ++j) p[j] += epsilon * v_p[j];
    for (std::size_t i = 0; i < y0.size(); ++i) y0[i] += epsilon * v_y0[i];
    const double moved = objective_value(problem, y0, p, sequence);
    report.epsilons.push_back(epsilon);
    report.remainders.push_back(std::abs(moved - base - epsilon * slope));
  }
  report.min_rate = INFINITY;
  for (std::size_t k = 1; k < report.remainders.size(); ++k) {
    report.rates.push_back(std::log2(report.remainders[k - 1] / report.remainders[k]));
    report.min_rate = detail::nan_min(report.min_rate, report.rates.back());
  }
  report.ok = report.min_rate >= 1.95;
  return report;
}

}  // namespace backsweep
