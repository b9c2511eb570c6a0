#pragma once
// Sensitivities of long-time averages of chaotic systems by non-intrusive least-squares
// shadowing (NILSS; Ni & Blonigan, J. Comput. Phys. 2017), on our own discrete solver.
// The plain derivative of a long-time average grows like exp(lambda_1 T); the shadowing
// direction v (the derivative of a nearby trajectory that stays close to the original
// for all time) stays bounded, and the average of dJ/du v + dJ/dp over the trajectory is
// the derivative of the average.
//
// The run is cut into K segments of length dT. Along each, m homogeneous tangents W (the
// unstable directions, found by the dynamics itself as in Benettin's method) and one
// inhomogeneous tangent v* per parameter ride as the Dual lanes of the state, so every
// step applies the exact tangent of the method's step. At each segment's end the flow
// direction f is projected out (a shift along f is a shift in time: its effect on the
// average is the time-dilation term) and W is re-orthonormalised (W = Q R, v* = Q b + v0).
// The shadowing direction is v_i = v*_i + W_i a_i with the a_i minimising the sum of
// ∫|v_i|² subject to continuity, a_{i+1} = R_{i+1} a_i + b_{i+1}: a block-tridiagonal
// least-squares problem of K m unknowns (shadowing.cpp). Then
//
//   d<J>/dp = <dJ/du v + dJ/dp> - (1 / T) sum_i xi_i (J(t_{i+1}) - <J>),
//
// xi_i the component of v along f removed at the end of segment i. The average is over
// the steps (the discrete mean of J at the step states, the spin-up excluded), so J in
// the time-dilation term is taken half a step past t_{i+1}, between the states before
// and after the jump (at t_{i+1} itself the result is off by O(h): 0.5% on Van der Pol
// at h = 0.01). The error estimate is the spread of the derivative over batches of
// consecutive segments.
#include <cstddef>
#include <string>
#include <vector>

#include "adjoint/shadowing_march.hpp"

namespace backsweep {

struct ShadowingResult {
  IntegrateStatus status = IntegrateStatus::success;
  std::string message;
  double average = 0.0;                 // <J> over the segments
  std::vector<double> gradient, error;  // d<J>/dp per parameter asked, and its standard error
  std::size_t steps = 0;                // steps of the segments (the spin-up excluded)
  // The size of the shadowing direction (its RMS over a segment), per parameter: the
  // median over the segments, the largest and the time its segment starts. A largest far
  // above the median marks a stretch where the attractor is far from hyperbolic, and a
  // derivative dominated by such stretches.
  std::vector<double> direction_median, direction_largest, direction_largest_at;
  bool ok() const { return status == IntegrateStatus::success; }
};

namespace detail {

// Whether the options describe a run (else `result` says why, invalid_options).
bool check_shadowing_options(const ShadowingOptions& options, std::size_t states, ShadowingResult& result);

// The average, the derivatives, their error estimates and the shadowing direction's sizes
// from the segments (m unstable directions, q parameters, step h), into `result`.
void summarise_shadowing(const std::vector<ShadowingSegment>& segments, std::size_t m, std::size_t q,
                         std::size_t batches, double h, double first_segment_time, ShadowingResult& result);

// The derivative from per-batch sums of N d<J>/dp (N = result.steps) over batch_steps
// steps each, into result.gradient, and the standard error of the batch means into
// result.error.
void add_batched_derivative(const std::vector<double>& sums, const std::vector<std::size_t>& batch_steps,
                            ShadowingResult& result);

// mu = K⁻¹ [gamma; 0], K the least-squares problem's (symmetric) KKT matrix and gamma_i
// = G_i - xi_W,i (J_end,i - <J>) / h: what the derivative gains per unit of each segment's
// d_i (-mu_a,i) and b_i (mu_lambda,i). See adjoint/shadowing_adjoint.hpp.
std::vector<double> shadowing_multipliers(const std::vector<ShadowingSegment>& segments, std::size_t m, double average,
                                          double h);

}  // namespace detail

// d<J>/dp_j for the parameters `parameters` of J(t, y, p) averaged along the trajectory
// from y0 (an explicit or implicit method of ours, fixed steps).
template <Model M, class Running>
ShadowingResult shadowing_gradient(const M& model, const Method& method, std::vector<double> y, const std::vector<double>& p,
                                   const Running& J, const std::vector<std::size_t>& parameters,
                                   const ShadowingOptions& options) {
  ShadowingResult result;
  if (!detail::check_shadowing_options(options, y.size(), result)) return result;
  double t = options.t0;
  std::vector<double> Q, v0(y.size() * parameters.size(), 0.0);
  IntegrateResult ran = detail::begin_shadowing(model, method, y, t, p, options, Q);
  const double first_segment_time = t;
  std::vector<detail::ShadowingSegment> segments;
  if (ran.ok())
    ran = with_stepper<Dual<double, kDerivativeLanes>>(model, method, [&](auto& stepper) {
      return detail::march_segments(model, stepper, t, y, Q, v0, p, J, parameters, options, options.segments,
                                    segments, nullptr, nullptr);
    });
  if (!ran.ok()) {
    result.status = ran.status;
    result.message = ran.message;
    return result;
  }
  detail::summarise_shadowing(segments, options.unstable, parameters.size(), options.batches, options.step,
                              first_segment_time, result);
  return result;
}

}  // namespace backsweep
