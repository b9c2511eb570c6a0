#include "solvers/krylov/krylov_methods.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace backsweep::krylov {
namespace {

// Eight running sums, not one: the additions no longer wait on each other, so the loop
// runs at the speed of memory (a single sum is bound by the adder's latency).
double dot(std::size_t n, const double* x, const double* y) {
  constexpr std::size_t kSums = 8;
  std::array<double, kSums> partial{};
  std::size_t i = 0;
  for (; i + kSums <= n; i += kSums)
    for (std::size_t l = 0; l < kSums; ++l) partial[l] += x[i + l] * y[i + l];
  double sum = 0.0;
  for (const double s : partial) sum += s;
  for (; i < n; ++i) sum += x[i] * y[i];
  return sum;
}

void precondition(Preconditioner* m, std::size_t n, const double* r, double* z) {
  if (m) m->apply(r, z);
  else std::copy(r, r + n, z);
}

// The relative residual of x from r = b0 - A x (computed here unless `r_is_current`), and
// x copied into b.
KrylovResult finish(const CsrMatrix& a, const std::vector<double>& b0, const std::vector<double>& x, double* b,
                    double b_norm, double tolerance, std::size_t iterations, std::vector<double>& r,
                    bool r_is_current = false) {
  const std::size_t n = a.rows;
  if (!r_is_current) a.residual(b0.data(), x.data(), r.data());
  KrylovResult result;
  result.iterations = iterations;
  result.residual = std::sqrt(dot(n, r.data(), r.data())) / b_norm;
  result.converged = result.residual <= tolerance;
  std::copy(x.begin(), x.end(), b);
  return result;
}

}  // namespace

KrylovResult gmres(const CsrMatrix& a, Preconditioner* m, double* b, double tolerance, std::size_t restart,
                   std::size_t max_iterations, KrylovWork& work) {
  const std::size_t n = a.rows;
  std::vector<double>& x = work.p;  // the iterate
  std::vector<double>& b0 = work.q;
  b0.assign(b, b + n);
  x.assign(n, 0.0);
  work.r.resize(n);
  work.w.resize(n);
  const double b_norm = std::sqrt(dot(n, b, b));
  if (b_norm == 0.0 || !std::isfinite(b_norm)) {  // a NaN in b: the caller's to report, not a solve's
    if (b_norm == 0.0) std::fill(b, b + n, 0.0);
    return {b_norm == 0.0, 0, b_norm == 0.0 ? 0.0 : NAN};
  }
  std::vector<double> h((restart + 1) * restart), g(restart + 1), cs(restart), sn(restart), y(restart);
  const auto at = [&](std::size_t i, std::size_t j) -> double& { return h[i * restart + j]; };
  std::size_t iterations = 0;
  std::vector<double>& r = work.r;
  std::copy(b0.begin(), b0.end(), r.begin());
  double beta = b_norm;
  while (iterations < max_iterations) {
    if (work.basis.size() < 1) work.basis.emplace_back(n);
    for (std::size_t i = 0; i < n; ++i) work.basis[0][i] = r[i] / beta;
    std::fill(g.begin(), g.end(), 0.0);
    g[0] = beta;
    std::size_t k = 0;  // the columns of this cycle
    for (; k < restart && iterations < max_iterations; ++k) {
      ++iterations;
      if (work.preconditioned.size() < k + 1) work.preconditioned.emplace_back(n);
      precondition(m, n, work.basis[k].data(), work.preconditioned[k].data());
      a.multiply(work.preconditioned[k].data(), work.w.data());
      for (std::size_t i = 0; i <= k; ++i) {
        at(i, k) = dot(n, work.w.data(), work.basis[i].data());
        const double c = at(i, k);
        const double* v = work.basis[i].data();
        for (std::size_t j = 0; j < n; ++j) work.w[j] -= c * v[j];
      }
      const double norm = std::sqrt(dot(n, work.w.data(), work.w.data()));
      at(k + 1, k) = norm;
      for (std::size_t i = 0; i < k; ++i) {  // the earlier rotations on the new column
        const double t = cs[i] * at(i, k) + sn[i] * at(i + 1, k);
        at(i + 1, k) = -sn[i] * at(i, k) + cs[i] * at(i + 1, k);
        at(i, k) = t;
      }
      const double rho = std::hypot(at(k, k), at(k + 1, k));
      cs[k] = rho == 0.0 ? 1.0 : at(k, k) / rho;
      sn[k] = rho == 0.0 ? 0.0 : at(k + 1, k) / rho;
      at(k, k) = rho;
      at(k + 1, k) = 0.0;
      g[k + 1] = -sn[k] * g[k];
      g[k] = cs[k] * g[k];
      if (!std::isfinite(g[k + 1])) break;
      if (std::abs(g[k + 1]) <= tolerance * b_norm || norm == 0.0) {
        ++k;
        break;
      }
      if (work.basis.size() < k + 2) work.basis.emplace_back(n);
      for (std::size_t j = 0; j < n; ++j) work.basis[k + 1][j] = work.w[j] / norm;
    }
    // y = H^{-1} g on the k columns; x += M^{-1} V y, kept column by column.
    for (std::size_t i = k; i-- > 0;) {
      double sum = g[i];
      for (std::size_t j = i + 1; j < k; ++j) sum -= at(i, j) * y[j];
      y[i] = at(i, i) == 0.0 ? 0.0 : sum / at(i, i);
    }
    for (std::size_t j = 0; j < k; ++j) {
      const double* z = work.preconditioned[j].data();
      for (std::size_t i = 0; i < n; ++i) x[i] += y[j] * z[i];
    }
    a.residual(b0.data(), x.data(), r.data());
    beta = std::sqrt(dot(n, r.data(), r.data()));
    if (beta <= tolerance * b_norm || !std::isfinite(beta) || k == 0) break;
  }
  return finish(a, b0, x, b, b_norm, tolerance, iterations, r, true);
}

KrylovResult conjugate_gradient(const CsrMatrix& a, Preconditioner* m, double* b, double tolerance,
                                std::size_t max_iterations, KrylovWork& work) {
  const std::size_t n = a.rows;
  if (work.basis.empty()) work.basis.emplace_back(n);
  std::vector<double>& x = work.basis[0];
  std::vector<double> &r = work.r, &z = work.z, &p = work.p, &q = work.q, &b0 = work.w;
  b0.assign(b, b + n);
  x.assign(n, 0.0);
  r.assign(b, b + n);
  z.resize(n);
  q.resize(n);
  const double b_norm = std::sqrt(dot(n, b, b));
  if (b_norm == 0.0 || !std::isfinite(b_norm)) {  // a NaN in b: the caller's to report, not a solve's
    if (b_norm == 0.0) std::fill(b, b + n, 0.0);
    return {b_norm == 0.0, 0, b_norm == 0.0 ? 0.0 : NAN};
  }
  precondition(m, n, r.data(), z.data());
  p = z;
  double rz = dot(n, r.data(), z.data());
  std::size_t iterations = 0;
  while (iterations < max_iterations) {
    ++iterations;
    a.multiply(p.data(), q.data());
    const double pq = dot(n, p.data(), q.data());
    if (pq <= 0.0 || !std::isfinite(pq)) break;  // A (or M) is not positive definite
    const double alpha = rz / pq;
    for (std::size_t i = 0; i < n; ++i) {
      x[i] += alpha * p[i];
      r[i] -= alpha * q[i];
    }
    if (std::sqrt(dot(n, r.data(), r.data())) <= tolerance * b_norm) {
      // The recurred residual drifts from b - A x: stop on the true one, else restart
      // from it (residual replacement).
      a.residual(b0.data(), x.data(), r.data());
      if (std::sqrt(dot(n, r.data(), r.data())) <= tolerance * b_norm) break;
      precondition(m, n, r.data(), z.data());
      p = z;
      rz = dot(n, r.data(), z.data());
      continue;
    }
    precondition(m, n, r.data(), z.data());
    const double rz_next = dot(n, r.data(), z.data());
    const double beta = rz_next / rz;
    rz = rz_next;
    for (std::size_t i = 0; i < n; ++i) p[i] = z[i] + beta * p[i];
  }
  return finish(a, b0, x, b, b_norm, tolerance, iterations, r);
}

}  // namespace backsweep::krylov
