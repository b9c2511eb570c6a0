#pragma once
// The tangents' march of shadowing (adjoint/shadowing.hpp's top): segment by segment, the
// m unstable directions and the inhomogeneous tangents ride as the Dual lanes of the state,
// and each segment leaves what the least-squares problem and the derivative need.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "adjoint/shadowing_options.hpp"
#include "models/derivatives.hpp"
#include "models/dual.hpp"
#include "solvers/integrate.hpp"
#include "solvers/method.hpp"

namespace backsweep::detail {

// What each segment leaves for the least-squares problem and the derivative (m unstable
// directions, q parameters): see shadowing.hpp's top.
struct ShadowingSegment {
  std::vector<double> C;     // m x m: sum over the steps of W⊥ᵀ W⊥ h
  std::vector<double> d;     // q x m: sum of W⊥ᵀ v*⊥_j h
  std::vector<double> R;     // m x m: the QR of W⊥ at the segment's end
  std::vector<double> b;     // q x m: Q_endᵀ v*⊥_j at the end
  std::vector<double> vv;    // q: sum of |v*⊥_j|² h
  std::vector<double> G;     // m: sum over the steps of dJ/du W
  std::vector<double> E;     // q: sum of dJ/du v*_j + dJ/dp_j
  std::vector<double> xi_W;  // m: fᵀ W / fᵀ f at the end
  std::vector<double> xi_v;  // q: fᵀ v*_j / fᵀ f at the end
  double J_end = 0.0;        // J half a step past the end (where the jump sits)
  double J_sum = 0.0;        // sum of J over the steps
  std::size_t steps = 0;
};

// Where a segment starts: time, state and its unstable directions (n x m, orthonormal).
struct ShadowingStart {
  double t = 0.0;
  std::vector<double> y, Q;
};

// One segment's steps, for a sweep back through it: the states y_0 .. y_S, the steps, and
// the unstable directions after each step with f projected out (S x m x n).
struct SegmentSteps {
  std::vector<double> states, directions;
  std::vector<StepInterval> steps;
};

// Modified Gram-Schmidt of the columns of X (n x m, column-major) into Q; R upper
// triangular (m x m, row-major).
void orthonormalize_columns(std::vector<double>& X, std::size_t n, std::size_t m, std::vector<double>& R);

// x -= f (fᵀx)/(fᵀf) where `project`; returns fᵀx / fᵀf (0 where not).
inline double project_out(const std::vector<double>& f, double* x, bool project) {
  if (!project) return 0.0;
  double ff = 0.0, fx = 0.0;
  for (std::size_t i = 0; i < f.size(); ++i) ff += f[i] * f[i], fx += f[i] * x[i];
  const double along = ff > 0.0 ? fx / ff : 0.0;
  for (std::size_t i = 0; i < f.size(); ++i) x[i] -= along * f[i];
  return along;
}

// Whether x (what is left of the tangents beyond the m directions, or the adjoint of the
// sweep back) is still finite and below 1e100 at time t; else the run's failure, `what`
// named. Growing from segment to segment means more directions are unstable than m.
inline IntegrateResult check_growth(const std::vector<double>& x, double t, std::size_t m, const std::string& what) {
  IntegrateResult result;
  const bool finite = std::all_of(x.begin(), x.end(), [](double v) { return std::isfinite(v); });
  if (finite && std::all_of(x.begin(), x.end(), [](double v) { return std::abs(v) < 1e100; })) return result;
  char when[32];
  std::snprintf(when, sizeof when, "%g", t);
  result.status = IntegrateStatus::non_finite_state;
  result.t = t;
  result.message = what + (finite ? " grew beyond 1e100 by t = " : " is not finite by t = ") + when +
                   (finite ? ": more directions are unstable than the " + std::to_string(m) + " shadowed" : "");
  return result;
}

// From y0 onto the attractor (options.spin_up), then the first unstable directions: fixed
// pseudo-random columns, f projected out, orthonormal. On return y and t are where the
// first segment starts.
template <Model M>
IntegrateResult begin_shadowing(const M& model, const Method& method, std::vector<double>& y, double& t,
                                const std::vector<double>& p, const ShadowingOptions& options, std::vector<double>& Q) {
  IntegrateOptions spin;
  spin.t0 = options.t0;
  spin.t1 = options.t0 + options.spin_up;
  spin.step = options.step;
  spin.max_steps = std::numeric_limits<std::size_t>::max();
  if (options.spin_up > 0.0) {
    IntegrateResult spun = with_stepper<double>(model, method, [&](auto& stepper) {
      return integrate(stepper, y.data(), p.data(), spin);
    });
    if (!spun.ok()) {
      spun.message = "spin-up: " + spun.message;
      return spun;
    }
  }
  t = spin.t1;
  const std::size_t n = y.size(), m = options.unstable;
  std::vector<double> f(n), R;
  Q.resize(n * m);
  for (std::size_t k = 0; k < n * m; ++k) Q[k] = std::sin(1.0 + 7.3 * double(k)) + 0.1 * double(k % 3);
  model(t, y.data(), p.data(), f.data());
  for (std::size_t l = 0; l < m; ++l) project_out(f, Q.data() + l * n, options.project_flow);
  orthonormalize_columns(Q, n, m, R);
  return {};
}

// `count` segments from (t, y) with the unstable directions Q and what is left of the
// inhomogeneous tangents v0 (n x q, one per parameter in `parameters`), each segment's
// data appended to `segments`; its start to `starts` and (for one segment) its steps to
// `steps`, where given. On return t, y, Q and v0 are where the next segment starts.
// `stepper` steps the model on Dual<double, kDerivativeLanes> numbers.
template <Model M, class Stepper, class Running>
IntegrateResult march_segments(const M& model, Stepper& stepper, double& t, std::vector<double>& y,
                               std::vector<double>& Q, std::vector<double>& v0, const std::vector<double>& p,
                               const Running& J, const std::vector<std::size_t>& parameters,
                               const ShadowingOptions& options, std::size_t count,
                               std::vector<ShadowingSegment>& segments, std::vector<ShadowingStart>* starts,
                               SegmentSteps* steps) {
  using D = Dual<double, kDerivativeLanes>;
  const std::size_t n = y.size(), m = options.unstable, q = parameters.size();
  const double h = options.step;
  const auto steps_per_segment = std::size_t(std::llround(options.segment_length / h));
  std::vector<double> f(n);
  const auto project = [&](double* x) { return project_out(f, x, options.project_flow); };
  // Lane g of the L = m + q tangents rides as lane g % 8 of chunk g / 8: each chunk is a
  // run of the segment on its own Dual numbers from the same state (the states agree
  // bitwise), and the projected lanes are kept step by step for the products across chunks.
  constexpr std::size_t kLanes = kDerivativeLanes;
  const std::size_t L = m + q, chunks = std::max<std::size_t>((L + kLanes - 1) / kLanes, 1);
  std::vector<D> yd(n), pd(p.size());
  std::vector<double> history(steps_per_segment * L * n), lanes(L * n), along(L), start(n), ahead(n);
  for (std::size_t segment_index = 0; segment_index < count; ++segment_index) {
    ShadowingSegment& s = segments.emplace_back();
    start = y;
    if (starts) starts->push_back({t, y, Q});
    if (steps) {
      steps->states = y;
      steps->steps.clear();
    }
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
            if (c == 0 && steps) {
              steps->steps.push_back(step);
              for (std::size_t i = 0; i < n; ++i) steps->states.push_back(state[i].v);
            }
            for (std::size_t k = 0; k < width; ++k)
              (first + k < m ? s.G[first + k] : s.E[first + k - m]) += value.d[k];
            read(step.t_next, state, history.data() + step_index++ * L * n);
          });
      if (!ran.ok()) return ran;
      read(segment.t1, yd.data(), lanes.data());
    }
    s.C.assign(m * m, 0.0);
    s.d.assign(q * m, 0.0);
    s.vv.assign(q, 0.0);
    for (std::size_t k = 0; k < steps_per_segment; ++k) {
      const double* at = history.data() + k * L * n;
      auto dot = [&](std::size_t a, std::size_t b) {
        double sum = 0.0;
        for (std::size_t i = 0; i < n; ++i) sum += at[a * n + i] * at[b * n + i];
        return sum;
      };
      for (std::size_t a = 0; a < m; ++a) {
        for (std::size_t b = 0; b < m; ++b) s.C[a * m + b] += h * dot(a, b);
        for (std::size_t j = 0; j < q; ++j) s.d[j * m + a] += h * dot(a, m + j);
      }
      for (std::size_t j = 0; j < q; ++j) s.vv[j] += h * dot(m + j, m + j);
    }
    if (steps) {  // the unstable directions' lanes after each step
      steps->directions.resize(steps_per_segment * m * n);
      for (std::size_t k = 0; k < steps_per_segment; ++k)
        std::copy_n(history.data() + k * L * n, m * n, steps->directions.data() + k * m * n);
    }
    t = segment.t1;
    // J where the jump sits: between this segment's last state and the next one's first
    // (the discrete mean counts the states after it from t + h on), half a step on.
    for (std::size_t i = 0; i < n; ++i) ahead[i] = y[i] + 0.5 * h * f[i];
    s.J_end = J(t + 0.5 * h, ahead.data(), p.data());
    s.xi_W.assign(along.begin(), along.begin() + std::ptrdiff_t(m));
    s.xi_v.assign(along.begin() + std::ptrdiff_t(m), along.end());
    std::copy(lanes.begin(), lanes.begin() + std::ptrdiff_t(n * m), Q.begin());
    orthonormalize_columns(Q, n, m, s.R);
    s.b.assign(q * m, 0.0);
    for (std::size_t j = 0; j < q; ++j) {
      double* v = lanes.data() + (m + j) * n;
      for (std::size_t l = 0; l < m; ++l) {
        double dot = 0.0;
        for (std::size_t i = 0; i < n; ++i) dot += Q[l * n + i] * v[i];
        s.b[j * m + l] = dot;
        for (std::size_t i = 0; i < n; ++i) v[i] -= dot * Q[l * n + i];
      }
      std::copy(v, v + n, v0.begin() + std::ptrdiff_t(j * n));
    }
    // Said before it overflows into the least squares.
    if (IntegrateResult grown = check_growth(v0, t, m, "the tangents"); !grown.ok()) return grown;
  }
  return {};
}

}  // namespace backsweep::detail
