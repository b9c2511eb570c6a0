#pragma once
// Shadowing sensitivities by the adjoint: the exact transpose of NILSS (shadowing.hpp), so
// its cost does not grow with the parameters (a parameter field is one gradient).
//
// NILSS's derivative is linear in the parameters' perturbation dp, which enters only
// through the inhomogeneous tangent v* (its source dPhi/dp dp at each step), and v* enters
// the derivative through dJ/du v* at each step, the time-dilation term (fᵀv*/fᵀf at each
// segment's end), the least-squares problem's right-hand side (d_i = Σ h W⊥ᵀv*, b_i =
// Q_{i+1}ᵀ v*⊥ at the end) and what is carried into the next segment (v0 = v*⊥ - Q b).
// One solve with the symmetric KKT matrix (shadowing_multipliers) turns the least squares'
// part into sources along the segments; a sweep back through them with the stepper's
// exact reverse step then gives d<J>/dp for every parameter at once. Each segment is
// marched again from its start (its unstable directions kept per segment: segments x m x n
// numbers) for its states and directions. It equals NILSS's derivative to round-off
// (tests/adjoint/shadowing_adjoint.test.cpp). Like Ni & Talnikar's NILSAS it needs no lane
// per parameter; unlike it, it is the same estimator as NILSS, not another one. Its error
// estimate batches the derivative by where dp enters (each segment's share carries what
// later segments make of it), where NILSS's batches it by where J is measured: the two
// estimates are alike, not equal. It does not form the shadowing direction, so it does
// not measure its size (direction_* stay empty).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <type_traits>
#include <vector>

#include "adjoint/detail/scalar_gradient.hpp"
#include "adjoint/shadowing.hpp"

namespace backsweep {

template <Model M, class Running>
ShadowingResult shadowing_adjoint_gradient(const M& model, const Method& method, std::vector<double> y,
                                           const std::vector<double>& p, const Running& J,
                                           const std::vector<std::size_t>& parameters,
                                           const ShadowingOptions& options) {
  ShadowingResult result;
  if (!detail::check_shadowing_options(options, y.size(), result)) return result;
  const std::size_t n = y.size(), m = options.unstable, np = p.size(), K = options.segments;
  const double h = options.step;
  const auto fail = [&](const IntegrateResult& ran) {
    result.status = ran.status;
    result.message = ran.message;
    return result;
  };

  // The march with the unstable directions alone, each segment's start kept.
  double t = options.t0;
  std::vector<double> Q, no_tangents;
  IntegrateResult ran = detail::begin_shadowing(model, method, y, t, p, options, Q);
  if (!ran.ok()) return fail(ran);
  const double first_segment_time = t;
  std::vector<detail::ShadowingSegment> segments;
  std::vector<detail::ShadowingStart> starts;
  ran = with_stepper<Dual<double, kDerivativeLanes>>(model, method, [&](auto& dual_stepper) {
    return detail::march_segments(model, dual_stepper, t, y, Q, no_tangents, p, J, {}, options, K, segments, &starts,
                                  nullptr);
  });
  if (!ran.ok()) return fail(ran);
  detail::summarise_shadowing(segments, m, 0, options.batches, h, first_segment_time, result);
  const std::vector<double> mu = detail::shadowing_multipliers(segments, m, result.average, h);

  // Back through the segments: nu is the adjoint of v*, `carried` that of the next
  // segment's v0.
  const std::size_t batches = std::max<std::size_t>(std::min(options.batches, K), 1);
  std::vector<std::vector<double>> batch(batches, std::vector<double>(np, 0.0));
  std::vector<std::size_t> batch_steps(batches, 0);
  std::vector<double> nu(n), carried(n, 0.0), w(n), f(n), step_mu(np), dJdy(n), dJdp(np);
  detail::ScalarGradient<double> gradient_of_J(n, np);
  std::vector<detail::ShadowingSegment> again;
  detail::SegmentSteps steps;
  const auto sweep = [&](auto& dual_stepper, auto& stepper) -> IntegrateResult {
    for (std::size_t i = K; i-- > 0;) {
      double t_i = starts[i].t;
      std::vector<double> y_i = starts[i].y, Q_i = starts[i].Q;
      again.clear();
      const IntegrateResult rerun =
          detail::march_segments(model, dual_stepper, t_i, y_i, Q_i, no_tangents, p, J, {}, options, 1, again, nullptr,
                                 &steps);
      if (!rerun.ok()) return rerun;
      const std::size_t S = steps.steps.size(), b = i * batches / K;
      batch_steps[b] += S;

      // At the segment's end: the time-dilation term, and b_i and v0_{i+1} through the next
      // segment's directions (nu += P (Q mu_lambda + (I - Q Qᵀ) carried)).
      model(starts[i].t + double(S) * h, steps.states.data() + S * n, p.data(), f.data());
      double ff = 0.0;
      for (double x : f) ff += x * x;
      const double dilation = options.project_flow && ff > 0.0 ? (segments[i].J_end - result.average) / h / ff : 0.0;
      for (std::size_t k = 0; k < n; ++k) nu[k] = -dilation * f[k];
      if (i + 1 < K) {
        const std::vector<double>& next = starts[i + 1].Q;
        w = carried;
        for (std::size_t l = 0; l < m; ++l) {
          const double* q = next.data() + l * n;
          double dot = 0.0;
          for (std::size_t k = 0; k < n; ++k) dot += q[k] * carried[k];
          for (std::size_t k = 0; k < n; ++k) w[k] += (mu[K * m + i * m + l] - dot) * q[k];
        }
        detail::project_out(f, w.data(), options.project_flow);
        for (std::size_t k = 0; k < n; ++k) nu[k] += w[k];
      }

      // The steps back: at each state after a step, dJ/du and the least squares' source
      // -h W⊥ mu_a; then the step's reverse.
      for (std::size_t s = S; s-- > 0;) {
        const double* state = steps.states.data() + (s + 1) * n;
        const double time = steps.steps[s].t_next;
        gradient_of_J([&](const auto* yy, const auto* pp) { return J(std::remove_cvref_t<decltype(yy[0])>(time), yy, pp); },
                      state, p.data(), dJdy.data(), dJdp.data());
        const double* W = steps.directions.data() + s * m * n;
        for (std::size_t k = 0; k < n; ++k) nu[k] += dJdy[k];
        for (std::size_t l = 0; l < m; ++l)
          for (std::size_t k = 0; k < n; ++k) nu[k] -= h * mu[i * m + l] * W[l * n + k];
        stepper.reverse(steps.steps[s], steps.states.data() + s * n, p.data(), nu.data(), step_mu.data());
        for (std::size_t j = 0; j < np; ++j) batch[b][j] += dJdp[j] + step_mu[j];
      }
      carried = nu;
      if (IntegrateResult grown = detail::check_growth(nu, starts[i].t, m, "the adjoint"); !grown.ok()) return grown;
    }
    return {};
  };
  ran = with_stepper<Dual<double, kDerivativeLanes>>(model, method, [&](auto& dual_stepper) {
    return with_stepper<double>(model, method, [&](auto& stepper) { return sweep(dual_stepper, stepper); });
  });
  if (!ran.ok()) return fail(ran);

  for (std::size_t j : parameters) {
    std::vector<double> sums(batches);
    for (std::size_t b = 0; b < batches; ++b) sums[b] = batch[b][j];
    detail::add_batched_derivative(sums, batch_steps, result);
  }
  return result;
}

}  // namespace backsweep
