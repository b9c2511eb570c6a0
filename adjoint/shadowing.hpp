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
#include <cmath>
#include <cstddef>
#include <limits>
#include <string>
#include <vector>

#include "adjoint/shadowing_options.hpp"
#include "models/derivatives.hpp"
#include "models/dual.hpp"
#include "solvers/integrate.hpp"
#include "solvers/method.hpp"

namespace backsweep {

struct ShadowingResult {
  IntegrateStatus status = IntegrateStatus::success;
  std::string message;
  double average = 0.0;                 // <J> over the segments
  std::vector<double> gradient, error;  // d<J>/dp per parameter asked, and its standard error
  std::size_t steps = 0;                // steps of the segments (the spin-up excluded)
  bool ok() const { return status == IntegrateStatus::success; }
};

namespace detail {

// What each segment leaves for the least-squares problem and the derivative (m unstable
// directions, q parameters): see shadowing.hpp's top.
struct ShadowingSegment {
  std::vector<double> C;     // m x m: sum over the steps of W⊥ᵀ W⊥ h
  std::vector<double> d;     // q x m: sum of W⊥ᵀ v*⊥_j h
  std::vector<double> R;     // m x m: the QR of W⊥ at the segment's end
  std::vector<double> b;     // q x m: Q_endᵀ v*⊥_j at the end
  std::vector<double> G;     // m: sum over the steps of dJ/du W
  std::vector<double> E;     // q: sum of dJ/du v*_j + dJ/dp_j
  std::vector<double> xi_W;  // m: fᵀ W / fᵀ f at the end
  std::vector<double> xi_v;  // q: fᵀ v*_j / fᵀ f at the end
  double J_end = 0.0;        // J half a step past the end (where the jump sits)
  double J_sum = 0.0;        // sum of J over the steps
  std::size_t steps = 0;
};

// Solves the least-squares problem for parameter j and returns each segment's
// contribution to N d<J>/dp_j (N the steps); the average and step h for xi's term.
std::vector<double> shadowing_contributions(const std::vector<ShadowingSegment>& segments, std::size_t m,
                                            std::size_t j, double average, double h);

// Modified Gram-Schmidt of the columns of X (n x m, column-major) into Q; R upper
// triangular (m x m, row-major).
void orthonormalize_columns(std::vector<double>& X, std::size_t n, std::size_t m, std::vector<double>& R);

}  // namespace detail

// d<J>/dp_j for the parameters `parameters` of J(t, y, p) averaged along the trajectory
// from y0 (an explicit or implicit method of ours, fixed steps).
template <Model M, class Running>
ShadowingResult shadowing_gradient(const M& model, const Method& method, std::vector<double> y, const std::vector<double>& p,
                                   const Running& J, const std::vector<std::size_t>& parameters,
                                   const ShadowingOptions& options) {
  using D = Dual<double, kDerivativeLanes>;
  ShadowingResult result;
  const std::size_t n = y.size(), m = options.unstable, q = parameters.size();
  const auto fail = [&](IntegrateStatus status, std::string message) {
    result.status = status;
    result.message = std::move(message);
    return result;
  };
  if (m >= n) return fail(IntegrateStatus::invalid_options, "unstable directions must be fewer than the states");
  const double h = options.step;
  const auto steps_per_segment = std::size_t(std::llround(options.segment_length / h));
  if (!(h > 0.0) || steps_per_segment == 0 || options.segments < 2)
    return fail(IntegrateStatus::invalid_options, "shadowing needs a fixed step, a segment of at least one step "
                                                  "and two segments");

  // Onto the attractor.
  IntegrateOptions spin;
  spin.t0 = options.t0;
  spin.t1 = options.t0 + options.spin_up;
  spin.step = h;
  spin.max_steps = std::numeric_limits<std::size_t>::max();
  if (options.spin_up > 0.0) {
    const IntegrateResult spun = with_stepper<double>(model, method, [&](auto& stepper) {
      return integrate(stepper, y.data(), p.data(), spin);
    });
    if (!spun.ok()) return fail(spun.status, "spin-up: " + spun.message);
  }

  std::vector<double> f(n), Q(n * m), R, v0(n * q, 0.0);
  for (std::size_t k = 0; k < n * m; ++k) Q[k] = std::sin(1.0 + 7.3 * double(k)) + 0.1 * double(k % 3);
  auto project = [&](double* x) {  // x -= f (fᵀx)/(fᵀf); returns fᵀx / fᵀf
    if (!options.project_flow) return 0.0;
    double ff = 0.0, fx = 0.0;
    for (std::size_t i = 0; i < n; ++i) ff += f[i] * f[i], fx += f[i] * x[i];
    const double along = ff > 0.0 ? fx / ff : 0.0;
    for (std::size_t i = 0; i < n; ++i) x[i] -= along * f[i];
    return along;
  };
  model(spin.t1, y.data(), p.data(), f.data());
  for (std::size_t l = 0; l < m; ++l) project(&Q[l * n]);
  detail::orthonormalize_columns(Q, n, m, R);

  // Lane g of the L = m + q tangents rides as lane g % 8 of chunk g / 8: each chunk is a
  // run of the segment on its own Dual numbers from the same state (the states agree
  // bitwise), and the projected lanes are kept step by step for the products across chunks.
  constexpr std::size_t kLanes = kDerivativeLanes;
  const std::size_t L = m + q, chunks = std::max<std::size_t>((L + kLanes - 1) / kLanes, 1);
  std::vector<D> yd(n), pd(p.size());
  std::vector<detail::ShadowingSegment> segments(options.segments);
  std::vector<double> history(steps_per_segment * L * n), lanes(L * n), along(L), start(n), ahead(n);
  double t = spin.t1;
  const IntegrateResult solved = with_stepper<D>(model, method, [&](auto& stepper) -> IntegrateResult {
    for (detail::ShadowingSegment& s : segments) {
      start = y;
      IntegrateOptions segment;
      segment.t0 = t;
      segment.t1 = t + double(steps_per_segment) * h;
      segment.step = h;
      s.G.assign(m, 0.0);
      s.E.assign(q, 0.0);
      for (std::size_t c = 0; c < chunks; ++c) {
        const std::size_t first = c * kLanes, width = std::min(kLanes, L - first);
        for (std::size_t i = 0; i < n; ++i) {
          yd[i] = D(start[i]);
          for (std::size_t k = 0; k < width; ++k)
            yd[i].d[k] = first + k < m ? Q[(first + k) * n + i] : v0[(first + k - m) * n + i];
        }
        for (std::size_t j = 0; j < p.size(); ++j) pd[j] = D(p[j]);
        for (std::size_t j = 0; j < q; ++j)
          if (m + j >= first && m + j < first + width) pd[parameters[j]].d[m + j - first] = 1.0;
        // The state's lanes of this chunk, f at (time, state) projected out, into `to`.
        auto read = [&](double time, const D* state, double* to) {
          for (std::size_t i = 0; i < n; ++i) y[i] = state[i].v;
          model(time, y.data(), p.data(), f.data());
          for (std::size_t k = 0; k < width; ++k) {
            double* lane = to + (first + k) * n;
            for (std::size_t i = 0; i < n; ++i) lane[i] = state[i].d[k];
            along[first + k] = project(lane);
          }
        };
        std::size_t step_index = 0;
        const IntegrateResult ran = integrate(
            stepper, yd.data(), pd.data(), segment, [](double, const D*) {},
            [&](const StepInterval& step, const D* state) {
              const D value = J(D(step.t_next), state, pd.data());
              if (c == 0) s.J_sum += value.v, ++s.steps;
              for (std::size_t k = 0; k < width; ++k)
                (first + k < m ? s.G[first + k] : s.E[first + k - m]) += value.d[k];
              read(step.t_next, state, &history[step_index++ * L * n]);
            });
        if (!ran.ok()) return ran;
        read(segment.t1, yd.data(), lanes.data());
      }
      s.C.assign(m * m, 0.0);
      s.d.assign(q * m, 0.0);
      for (std::size_t k = 0; k < steps_per_segment; ++k) {
        const double* at = &history[k * L * n];
        auto dot = [&](std::size_t a, std::size_t b) {
          double sum = 0.0;
          for (std::size_t i = 0; i < n; ++i) sum += at[a * n + i] * at[b * n + i];
          return sum;
        };
        for (std::size_t a = 0; a < m; ++a) {
          for (std::size_t b = 0; b < m; ++b) s.C[a * m + b] += h * dot(a, b);
          for (std::size_t j = 0; j < q; ++j) s.d[j * m + a] += h * dot(a, m + j);
        }
      }
      t = segment.t1;
      // J where the jump sits: between this segment's last state and the next one's first
      // (the discrete mean counts the states after it from t + h on), half a step on.
      for (std::size_t i = 0; i < n; ++i) ahead[i] = y[i] + 0.5 * h * f[i];
      s.J_end = J(t + 0.5 * h, ahead.data(), p.data());
      s.xi_W.assign(along.begin(), along.begin() + std::ptrdiff_t(m));
      s.xi_v.assign(along.begin() + std::ptrdiff_t(m), along.end());
      std::copy(lanes.begin(), lanes.begin() + std::ptrdiff_t(n * m), Q.begin());
      detail::orthonormalize_columns(Q, n, m, s.R);
      s.b.assign(q * m, 0.0);
      for (std::size_t j = 0; j < q; ++j) {
        double* v = &lanes[(m + j) * n];
        for (std::size_t l = 0; l < m; ++l) {
          double dot = 0.0;
          for (std::size_t i = 0; i < n; ++i) dot += Q[l * n + i] * v[i];
          s.b[j * m + l] = dot;
          for (std::size_t i = 0; i < n; ++i) v[i] -= dot * Q[l * n + i];
        }
        std::copy(v, v + n, v0.begin() + std::ptrdiff_t(j * n));
      }
    }
    return {};
  });
  if (!solved.ok()) return fail(solved.status, solved.message);

  double J_sum = 0.0;
  for (const auto& s : segments) J_sum += s.J_sum, result.steps += s.steps;
  result.average = J_sum / double(result.steps);
  const std::size_t batches = std::max<std::size_t>(std::min(options.batches, segments.size()), 1);
  for (std::size_t j = 0; j < q; ++j) {
    const std::vector<double> c = detail::shadowing_contributions(segments, m, j, result.average, h);
    double total = 0.0;
    std::vector<double> batch(batches, 0.0);
    std::vector<std::size_t> batch_steps(batches, 0);
    for (std::size_t i = 0; i < segments.size(); ++i) {
      total += c[i];
      batch[i * batches / segments.size()] += c[i];
      batch_steps[i * batches / segments.size()] += segments[i].steps;
    }
    result.gradient.push_back(total / double(result.steps));
    double spread = 0.0;
    for (std::size_t b = 0; b < batches; ++b) {
      const double x = batch[b] / double(batch_steps[b]) - result.gradient.back();
      spread += x * x;
    }
    result.error.push_back(batches > 1 ? std::sqrt(spread / double(batches - 1) / double(batches)) : NAN);
  }
  return result;
}

}  // namespace backsweep
