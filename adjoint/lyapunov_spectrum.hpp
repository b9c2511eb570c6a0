#pragma once
// The k leading Lyapunov exponents by Benettin's method: k tangent vectors ride along
// the trajectory as the Dual lanes of the state (so each step applies the exact tangent
// of the method's step) or, with CVODES, as its forward sensitivities; every few steps a
// Gram-Schmidt QR re-orthonormalises them; the exponents are the time averages of
// log R_ii. A transient is skipped first; the averaging time is cut into blocks whose
// spread gives each exponent's standard error.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "adjoint/gradient_problem.hpp"
#include "models/derivatives.hpp"
#include "solvers/cvodes.hpp"
#include "solvers/method.hpp"
#include "solvers/step_grid.hpp"
#include "solvers/vector_operations.hpp"

namespace backsweep {

struct LyapunovOptions {
  std::size_t exponents = 1;     // k <= state size
  double t0 = 0.0;
  double step = 0.01;            // fixed step of the method (CVODES: the grid of the QRs)
  double rtol = 1e-8, atol = 1e-10;  // CVODES only: it chooses its own steps
  double transient = 0.0;        // time skipped before averaging
  double duration = 100.0;       // averaging time
  std::size_t reorthonormalize_every = 10;  // steps between QRs
  std::size_t blocks = 20;       // of the averaging time, for the standard errors
  std::size_t history_points = 200;  // running estimates kept, evenly in time
};

struct LyapunovResult {
  IntegrateStatus status = IntegrateStatus::success;
  std::string message;
  std::vector<double> exponents, standard_errors;  // descending
  double kaplan_yorke_dimension = 0.0;
  std::size_t steps = 0;
  std::vector<double> history_times;  // averaging time elapsed
  std::vector<double> history;        // running estimates, history_times.size() x k
  std::optional<NonFinite> nonfinite;
  bool ok() const { return status == IntegrateStatus::success; }
};

// j + (lambda_1 + ... + lambda_j) / |lambda_{j+1}| for the largest j whose partial sum
// is >= 0 (the exponents descending); k when every partial sum is >= 0.
double kaplan_yorke_dimension(const std::vector<double>& exponents);

namespace detail {

// Modified Gram-Schmidt on the tangent lanes of y (n values, lanes 0..k-1 of chunks of
// L lanes, chunk c holding vectors cL..cL+L-1). Writes log R_jj into log_r.
template <class D>
void orthonormalize(std::vector<std::vector<D>>& chunks, std::size_t n, std::size_t k,
                    std::vector<double>& log_r) {
  constexpr std::size_t L = std::size_t(D::lanes);
  auto at = [&](std::size_t vector, std::size_t i) -> double& {
    return chunks[vector / L][i].d[vector % L];
  };
  for (std::size_t j = 0; j < k; ++j) {
    for (std::size_t q = 0; q < j; ++q) {
      double dot = 0.0;
      for (std::size_t i = 0; i < n; ++i) dot += at(j, i) * at(q, i);
      for (std::size_t i = 0; i < n; ++i) at(j, i) -= dot * at(q, i);
    }
    double norm = 0.0;
    for (std::size_t i = 0; i < n; ++i) norm += at(j, i) * at(j, i);
    norm = std::sqrt(norm);
    log_r[j] = std::log(norm);
    for (std::size_t i = 0; i < n; ++i) at(j, i) /= norm;
  }
}

}  // namespace detail

template <Model M>
LyapunovResult lyapunov_spectrum(const M& model, const Method& method,
                                 const std::vector<double>& y0, const std::vector<double>& p,
                                 const LyapunovOptions& options) {
  using D = Dual<double, kDerivativeLanes>;
  constexpr std::size_t L = kDerivativeLanes;
  LyapunovResult result;
  const std::size_t n = state_size(model), k = options.exponents;
  auto fail = [&](const std::string& message) {
    result.status = IntegrateStatus::invalid_options;
    result.message = message;
    return result;
  };
  if (k == 0 || k > n) return fail("the number of exponents must be between 1 and the state size");
  if (!(options.step > 0.0)) return fail("the step must be > 0");
  if (!(options.duration > 0.0) || !(options.transient >= 0.0))
    return fail("the duration must be > 0 and the transient >= 0");
  if (options.reorthonormalize_every == 0 || options.blocks == 0)
    return fail("reorthonormalize_every and blocks must be at least 1");
  const double h = options.step;
  const auto transient_steps = std::size_t(std::llround(options.transient / h));
  const std::size_t every = options.reorthonormalize_every;
  // Whole QR intervals, at least one per block.
  const std::size_t intervals =
      std::max<std::size_t>(std::size_t(std::llround(options.duration / h / double(every))),
                            options.blocks);
  const double interval_time = double(every) * h;

  // Chunk c carries the state and tangent vectors cL .. cL+L-1, started on the unit vectors.
  const std::size_t chunk_count = (k + L - 1) / L;
  std::vector<std::vector<D>> chunks(chunk_count, std::vector<D>(n)), next = chunks;
  for (std::size_t c = 0; c < chunk_count; ++c)
    for (std::size_t i = 0; i < n; ++i) {
      chunks[c][i] = D(y0[i]);
      if (i >= c * L && i < (c + 1) * L && i < k) chunks[c][i].d[i - c * L] = 1.0;
    }
  std::vector<double> log_r(k), sums(k, 0.0);
  std::vector<std::vector<double>> block_sums(options.blocks, std::vector<double>(k, 0.0));
  std::size_t step = 0;
  auto failed = [&](const IntegrateResult& why) {
    result.status = why.status;
    result.message = why.message;
    return false;
  };

  // Lyapunov exponents from `advance(count)`, which moves every chunk `count` steps of
  // the grid on from `step` and returns false (with result's status set) on failure.
  auto spectrum = [&](auto&& advance) -> LyapunovResult {
    // Transient: the vectors align with the leading directions; nothing is averaged.
    for (std::size_t done = 0; done < transient_steps; done += every) {
      if (!advance(std::min(every, transient_steps - done))) return result;
      detail::orthonormalize(chunks, n, k, log_r);
    }
    const std::size_t history_every =
        std::max<std::size_t>(intervals / std::max<std::size_t>(options.history_points, 1), 1);
    for (std::size_t interval = 0; interval < intervals; ++interval) {
      if (!advance(every)) return result;
      detail::orthonormalize(chunks, n, k, log_r);
      std::vector<double>& block = block_sums[interval * options.blocks / intervals];
      for (std::size_t j = 0; j < k; ++j) {
        sums[j] += log_r[j];
        block[j] += log_r[j];
      }
      if ((interval + 1) % history_every == 0 || interval + 1 == intervals) {
        const double elapsed = double(interval + 1) * interval_time;
        result.history_times.push_back(elapsed);
        for (std::size_t j = 0; j < k; ++j) result.history.push_back(sums[j] / elapsed);
      }
    }
    if (method.has_stepper()) result.steps = step;
    const double total_time = double(intervals) * interval_time;
    result.exponents.resize(k);
    result.standard_errors.assign(k, 0.0);
    for (std::size_t j = 0; j < k; ++j) result.exponents[j] = sums[j] / total_time;
    if (options.blocks > 1) {
      const double B = double(options.blocks);
      for (std::size_t j = 0; j < k; ++j) {
        double squares = 0.0;
        for (std::size_t b = 0; b < options.blocks; ++b) {
          // Blocks hold whole intervals, nearly equal in number.
          std::size_t first = (b * intervals + options.blocks - 1) / options.blocks;
          std::size_t last = ((b + 1) * intervals + options.blocks - 1) / options.blocks;
          const double mean = block_sums[b][j] / (double(last - first) * interval_time);
          squares += (mean - result.exponents[j]) * (mean - result.exponents[j]);
        }
        result.standard_errors[j] = std::sqrt(squares / (B - 1.0) / B);
      }
    }
    result.kaplan_yorke_dimension = kaplan_yorke_dimension(result.exponents);
    return result;
  };

  if (method.is_sundials()) {
    // CVODES' forward sensitivities carry the tangent vectors, restarted at each QR.
    ModelSystem ode(model, p.data(), method.newton.linear_solver, method.newton.preconditioner);
    SensitivityDirections directions{k, std::vector<double>(k * n), std::vector<double>(k * p.size(), 0.0)};
    std::vector<double> y(n);
    return spectrum([&](std::size_t count) {
      IntegrateOptions segment;
      segment.t0 = options.t0 + double(step) * h;
      segment.t1 = options.t0 + double(step + count) * h;
      segment.output_times = {segment.t1};
      segment.rtol = options.rtol;
      segment.atol = options.atol;
      for (std::size_t i = 0; i < n; ++i) y[i] = chunks[0][i].v;
      for (std::size_t j = 0; j < k; ++j)
        for (std::size_t i = 0; i < n; ++i) directions.initial[j * n + i] = chunks[j / L][i].d[j % L];
      CvodesCounts counts;
      const IntegrateResult solved = cvodes_sensitivities(
          ode, method.sundials_bdf(), y.data(), directions, segment,
          [&](double, const double* state, const double* s) {
            for (std::size_t j = 0; j < k; ++j)
              for (std::size_t i = 0; i < n; ++i) chunks[j / L][i].d[j % L] = s[j * n + i];
            for (auto& chunk : chunks)
              for (std::size_t i = 0; i < n; ++i) chunk[i].v = state[i];
          },
          &counts);
      step += count;
      result.steps += counts.steps;
      return solved.ok() || failed(solved);
    });
  }
  std::vector<D> parameters(p.begin(), p.end());
  return with_stepper<D>(model, method, [&](auto& stepper) {
    // Each chunk is its own solve, so nothing is carried between chunks.
    return spectrum([&](std::size_t count) {
      for (std::size_t s = 0; s < count; ++s, ++step) {
        const StepInterval interval = uniform_step(options.t0, h, step);
        for (std::size_t c = 0; c < chunk_count; ++c) {
          stepper.restart();
          stepper.step(interval, chunks[c].data(), parameters.data(), next[c].data());
          std::swap(chunks[c], next[c]);
        }
        for (std::size_t c = 0; c < chunk_count; ++c)
          if (const std::size_t i = first_non_finite<CpuAlgebra>(n, chunks[c].data()); i < n) {
            result.nonfinite = NonFinite{"forward", step + 1, i, interval.t_next};
            return failed({IntegrateStatus::non_finite_state, result.nonfinite->describe()});
          }
      }
      return true;
    });
  });
}

}  // namespace backsweep
