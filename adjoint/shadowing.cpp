#include "adjoint/shadowing.hpp"

#include <Eigen/Sparse>
#include <Eigen/SparseLU>

namespace backsweep::detail {

void orthonormalize_columns(std::vector<double>& X, std::size_t n, std::size_t m, std::vector<double>& R) {
  R.assign(m * m, 0.0);
  for (std::size_t a = 0; a < m; ++a) {
    double* x = &X[a * n];
    for (std::size_t b = 0; b < a; ++b) {
      const double* e = &X[b * n];
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

std::vector<double> shadowing_contributions(const std::vector<ShadowingSegment>& segments, std::size_t m,
                                            std::size_t j, double average, double h) {
  const std::size_t K = segments.size();
  std::vector<double> a(K * m, 0.0);
  if (m > 0) {
    // The KKT system of min sum_i 1/2 a_iᵀ C_i a_i + d_iᵀ a_i subject to
    // a_{i+1} - R_i a_i = b_i: unknowns a (K m), then the multipliers ((K - 1) m).
    const auto size = Eigen::Index(K * m + (K - 1) * m);
    std::vector<Eigen::Triplet<double>> entries;
    Eigen::VectorXd rhs = Eigen::VectorXd::Zero(size);
    const auto row_a = [&](std::size_t i, std::size_t r) { return Eigen::Index(i * m + r); };
    const auto row_l = [&](std::size_t k, std::size_t r) { return Eigen::Index(K * m + k * m + r); };
    for (std::size_t i = 0; i < K; ++i) {
      const ShadowingSegment& s = segments[i];
      for (std::size_t r = 0; r < m; ++r) {
        rhs[row_a(i, r)] = -s.d[j * m + r];
        for (std::size_t c = 0; c < m; ++c) entries.emplace_back(row_a(i, r), row_a(i, c), s.C[r * m + c]);
      }
      if (i + 1 == K) continue;
      for (std::size_t r = 0; r < m; ++r) {  // constraint i: a_{i+1} - R_i a_i = b_i
        rhs[row_l(i, r)] = s.b[j * m + r];
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
    Eigen::SparseLU<Eigen::SparseMatrix<double>> lu(kkt);
    const Eigen::VectorXd x = lu.solve(rhs);
    for (std::size_t k = 0; k < K * m; ++k) a[k] = x[Eigen::Index(k)];
  }
  std::vector<double> contributions(K);
  for (std::size_t i = 0; i < K; ++i) {
    const ShadowingSegment& s = segments[i];
    double c = s.E[j], xi = s.xi_v[j];
    for (std::size_t l = 0; l < m; ++l) {
      c += s.G[l] * a[i * m + l];
      xi += s.xi_W[l] * a[i * m + l];
    }
    contributions[i] = c - xi * (s.J_end - average) / h;
  }
  return contributions;
}

}  // namespace backsweep::detail
