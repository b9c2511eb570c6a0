#pragma once
// Checks of a gradient over many unknowns (fields), where a column-by-column tangent
// would take thousands of solves: the forward tangent along random directions (one Dual
// lane through the whole solve), and central differences per scalar parameter.
#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <vector>

#include "adjoint/discrete_adjoint.hpp"
#include "adjoint/forward_tangent.hpp"

namespace backsweep::testing {

inline std::vector<double> random_direction(std::size_t n, unsigned seed) {
  std::mt19937 generator(seed);
  std::normal_distribution<double> normal;
  std::vector<double> v(n);
  for (double& x : v) x = normal(generator);
  return v;
}

inline double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double sum = 0;
  for (std::size_t i = 0; i < a.size(); ++i) sum += a[i] * b[i];
  return sum;
}

// dJ.(v_p, v_y0) by one forward-tangent solve.
template <class Problem>
double tangent_along(const Problem& problem, const std::vector<double>& v_p, const std::vector<double>& v_y0) {
  using D = Dual<double, 1>;
  StepSequence sequence;
  REQUIRE(problem_step_sequence(problem, sequence).ok());
  std::vector<D> y0(problem.y0.size()), p(problem.p.size());
  for (std::size_t i = 0; i < y0.size(); ++i) {
    y0[i] = D(problem.y0[i]);
    y0[i].d[0] = v_y0[i];
  }
  for (std::size_t j = 0; j < p.size(); ++j) {
    p[j] = D(problem.p[j]);
    p[j].d[0] = v_p[j];
  }
  return objective_value<D>(problem, y0, p, sequence).d[0];
}

// The adjoint gradient against the tangent along random directions of (p, y0) (seeds
// 1 .. directions), to 1e-10 relative.
template <class Problem>
void check_against_tangent(const Problem& problem, const GradientResult<double>& adjoint, unsigned directions) {
  for (unsigned seed = 1; seed <= directions; ++seed) {
    const auto v_p = random_direction(problem.p.size(), seed), v_y0 = random_direction(problem.y0.size(), seed + 10);
    const double exact = tangent_along(problem, v_p, v_y0);
    CAPTURE(seed);
    CHECK(std::abs(dot(adjoint.dJ_dp, v_p) + dot(adjoint.dJ_dy0, v_y0) - exact) <= 1e-10 * std::abs(exact));
  }
}

// dJ/dp_j against the tangent along each parameter alone, to 1e-10 relative.
template <class Problem>
void check_each_parameter_against_tangent(const Problem& problem, const GradientResult<double>& adjoint) {
  for (std::size_t j = 0; j < problem.p.size(); ++j) {
    std::vector<double> e(problem.p.size(), 0.0);
    e[j] = 1.0;
    const double exact = tangent_along(problem, e, std::vector<double>(problem.y0.size(), 0.0));
    CAPTURE(j);
    CHECK(std::abs(adjoint.dJ_dp[j] - exact) <= 1e-10 * std::abs(exact));
  }
}

// (J(p + h v_p) - J(p - h v_p)) / 2h on the step sequence of the solve at p.
template <class Problem>
double central_difference(const Problem& problem, const StepSequence& sequence, const std::vector<double>& v_p,
                          double h) {
  auto p = problem.p;
  for (std::size_t j = 0; j < p.size(); ++j) p[j] = problem.p[j] + h * v_p[j];
  const double plus = objective_value(problem, problem.y0, p, sequence);
  for (std::size_t j = 0; j < p.size(); ++j) p[j] = problem.p[j] - h * v_p[j];
  return (plus - objective_value(problem, problem.y0, p, sequence)) / (2 * h);
}

// dJ/dp_j against central differences of the same discrete solve, to 1e-6 relative.
template <class Problem>
void check_parameters_by_differences(const Problem& problem, const GradientResult<double>& adjoint) {
  StepSequence sequence;
  REQUIRE(problem_step_sequence(problem, sequence).ok());
  for (std::size_t j = 0; j < problem.p.size(); ++j) {
    std::vector<double> e(problem.p.size(), 0.0);
    e[j] = problem.p[j];  // a step of 1e-6 p_j
    CAPTURE(j);
    CHECK(std::abs(adjoint.dJ_dp[j] * problem.p[j] - central_difference(problem, sequence, e, 1e-6)) <=
          1e-6 * std::abs(adjoint.dJ_dp[j] * problem.p[j]));
  }
}

// The adjoint gradient against central differences of the same discrete solve along v_p
// (a few percent of a parameter field, say), with a step of 1e-4 v_p, to 1e-6 relative.
template <class Problem>
void check_direction_by_differences(const Problem& problem, const GradientResult<double>& adjoint,
                                    const std::vector<double>& v_p) {
  StepSequence sequence;
  REQUIRE(problem_step_sequence(problem, sequence).ok());
  const double exact = dot(adjoint.dJ_dp, v_p);
  CHECK(std::abs(central_difference(problem, sequence, v_p, 1e-4) - exact) <= 1e-6 * std::abs(exact));
}

}  // namespace backsweep::testing
