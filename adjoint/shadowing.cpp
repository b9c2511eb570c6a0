#include "adjoint/shadowing.hpp"

#include <Eigen/Sparse>
#include <Eigen/SparseLU>

#include <algorithm>
#include <cmath>

namespace backsweep::detail {

void orthonormalize_columns(std::vector<double>& X, std::size_t n, std::size_t m, std::vector<double>& R) {
  R.assign(m * m, 0.0);
  for (std::size_t a = 0; a < m; ++a) {
    double* x = X.data() + a * n;
    for (std::size_t b = 0; b < a; ++b) {
      const double* e = X.data() + b * n;
      double dot = 0.0;
      for (std::size_t i = 0; i < n; ++i) dot += e[i] * x[i];
      R[b * m + a] = dot;
      for (std::size_t i = 0; i < n; ++i) x[i] -= dot * e[i];
    }
    double norm = 0.0;
    for (std::size_t i = 0; i < n; ++i) norm += x[i] * x[i];
    norm = std::sqrt(norm);
    R[a * m + a] = norm;
    for (std::size_t i = 0; i < n; ++i) x[i] /= norm;
  }
}

namespace {

// Per segment: its contribution to N d<J>/dp_j (N the steps) and the RMS of its shadowing
// direction v = v* + W a, from the least-squares problem's a.
struct SegmentShares {
  std::vector<double> derivative, size;
};

// The KKT system of min sum_i 1/2 a_iᵀ C_i a_i + d_iᵀ a_i subject to a_{i+1} - R_i a_i = b_i:
// unknowns a (K m), then the multipliers ((K - 1) m). Symmetric.
Eigen::SparseMatrix<double> shadowing_kkt(const std::vector<ShadowingSegment>& segments, std::size_t m) {
  const std::size_t K = segments.size();
  const auto size = Eigen::Index(K * m + (K - 1) * m);
  std::vector<Eigen::Triplet<double>> entries;
  const auto row_a = [&](std::size_t i, std::size_t r) { return Eigen::Index(i * m + r); };
  const auto row_l = [&](std::size_t k, std::size_t r) { return Eigen::Index(K * m + k * m + r); };
  for (std::size_t i = 0; i < K; ++i) {
    const ShadowingSegment& s = segments[i];
    for (std::size_t r = 0; r < m; ++r)
      for (std::size_t c = 0; c < m; ++c) entries.emplace_back(row_a(i, r), row_a(i, c), s.C[r * m + c]);
    if (i + 1 == K) continue;
    for (std::size_t r = 0; r < m; ++r) {  // constraint i
      entries.emplace_back(row_l(i, r), row_a(i + 1, r), 1.0);
      entries.emplace_back(row_a(i + 1, r), row_l(i, r), 1.0);
      for (std::size_t c = 0; c < m; ++c) {
        entries.emplace_back(row_l(i, r), row_a(i, c), -s.R[r * m + c]);
        entries.emplace_back(row_a(i, c), row_l(i, r), -s.R[r * m + c]);
      }
    }
  }
  Eigen::SparseMatrix<double> kkt(size, size);
  kkt.setFromTriplets(entries.begin(), entries.end());
  return kkt;
}

std::vector<double> solve_kkt(const std::vector<ShadowingSegment>& segments, std::size_t m,
                              const std::vector<double>& rhs) {
  if (m == 0 || segments.empty()) return std::vector<double>(rhs.size(), 0.0);
  const Eigen::SparseLU<Eigen::SparseMatrix<double>> lu(shadowing_kkt(segments, m));
  const Eigen::VectorXd x = lu.solve(Eigen::Map<const Eigen::VectorXd>(rhs.data(), Eigen::Index(rhs.size())));
  return {x.data(), x.data() + x.size()};
}

SegmentShares shadowing_shares(const std::vector<ShadowingSegment>& segments, std::size_t m, std::size_t j,
                               double average, double h) {
  const std::size_t K = segments.size();
  std::vector<double> rhs(K * m + (K > 0 ? (K - 1) * m : 0), 0.0);
  for (std::size_t i = 0; i < K; ++i)
    for (std::size_t r = 0; r < m; ++r) {
      rhs[i * m + r] = -segments[i].d[j * m + r];
      if (i + 1 < K) rhs[K * m + i * m + r] = segments[i].b[j * m + r];
    }
  const std::vector<double> a = solve_kkt(segments, m, rhs);
  SegmentShares shares{std::vector<double>(K), std::vector<double>(K)};
  for (std::size_t i = 0; i < K; ++i) {
    const ShadowingSegment& s = segments[i];
    const double* ai = a.data() + i * m;
    double c = s.E[j], xi = s.xi_v[j], squares = s.vv[j];  // ∫|v|² = vv + 2 dᵀa + aᵀ C a
    for (std::size_t l = 0; l < m; ++l) {
      c += s.G[l] * ai[l];
      xi += s.xi_W[l] * ai[l];
      squares += 2.0 * s.d[j * m + l] * ai[l];
      for (std::size_t k = 0; k < m; ++k) squares += ai[l] * s.C[l * m + k] * ai[k];
    }
    shares.derivative[i] = c - xi * (s.J_end - average) / h;
    shares.size[i] = std::sqrt(std::max(squares, 0.0) / (double(s.steps) * h));
  }
  return shares;
}

}  // namespace

std::vector<double> shadowing_multipliers(const std::vector<ShadowingSegment>& segments, std::size_t m, double average,
                                          double h) {
  const std::size_t K = segments.size();
  std::vector<double> gamma(K * m + (K > 0 ? (K - 1) * m : 0), 0.0);
  for (std::size_t i = 0; i < K; ++i)
    for (std::size_t r = 0; r < m; ++r)
      gamma[i * m + r] = segments[i].G[r] - segments[i].xi_W[r] * (segments[i].J_end - average) / h;
  return solve_kkt(segments, m, gamma);
}

void add_batched_derivative(const std::vector<double>& sums, const std::vector<std::size_t>& batch_steps,
                            ShadowingResult& result) {
  double total = 0.0;
  for (double sum : sums) total += sum;
  const double derivative = total / double(result.steps);
  double spread = 0.0;
  for (std::size_t b = 0; b < sums.size(); ++b) {
    const double x = sums[b] / double(batch_steps[b]) - derivative;
    spread += x * x;
  }
  const double batches = double(sums.size());
  result.gradient.push_back(derivative);
  result.error.push_back(sums.size() > 1 ? std::sqrt(spread / (batches - 1.0) / batches) : NAN);
}

bool check_shadowing_options(const ShadowingOptions& options, std::size_t states, ShadowingResult& result) {
  result.status = IntegrateStatus::invalid_options;
  if (options.unstable >= states) result.message = "unstable directions must be fewer than the states";
  else if (!(options.step > 0.0) || std::llround(options.segment_length / options.step) < 1 || options.segments < 2)
    result.message = "shadowing needs a fixed step, a segment of at least one step and two segments";
  else result.status = IntegrateStatus::success;
  return result.ok();
}

void summarise_shadowing(const std::vector<ShadowingSegment>& segments, std::size_t m, std::size_t q,
                         std::size_t batches, double h, double first_segment_time, ShadowingResult& result) {
  const std::size_t K = segments.size();
  double J_sum = 0.0;
  for (const auto& s : segments) J_sum += s.J_sum, result.steps += s.steps;
  result.average = J_sum / double(result.steps);
  batches = std::max<std::size_t>(std::min(batches, K), 1);
  for (std::size_t j = 0; j < q; ++j) {
    const SegmentShares shares = shadowing_shares(segments, m, j, result.average, h);
    std::vector<double> batch(batches, 0.0);
    std::vector<std::size_t> batch_steps(batches, 0);
    for (std::size_t i = 0; i < K; ++i) {
      batch[i * batches / K] += shares.derivative[i];
      batch_steps[i * batches / K] += segments[i].steps;
    }
    add_batched_derivative(batch, batch_steps, result);

    const auto largest = std::max_element(shares.size.begin(), shares.size.end());
    const auto segment = std::size_t(largest - shares.size.begin());
    result.direction_largest.push_back(*largest);
    result.direction_largest_at.push_back(first_segment_time + double(segment * segments[0].steps) * h);
    std::vector<double> sizes = shares.size;
    std::nth_element(sizes.begin(), sizes.begin() + std::ptrdiff_t(K / 2), sizes.end());
    result.direction_median.push_back(sizes[K / 2]);
  }
}

}  // namespace backsweep::detail
