#include "solvers/sparse_lu.hpp"

#include <Eigen/SparseCore>
#include <Eigen/SparseLU>

#include <vector>

namespace backsweep {

struct SparseLU::Factors {
  Eigen::SparseMatrix<double> matrix;
  Eigen::SparseLU<Eigen::SparseMatrix<double>, Eigen::COLAMDOrdering<int>> lu;
  bool analyzed = false;
  std::size_t n = 0;
  std::vector<Eigen::Triplet<double>> entries;  // reused: no allocation per factorization
  mutable Eigen::VectorXd x;
};

SparseLU::SparseLU() : factors_(std::make_unique<Factors>()) {}
SparseLU::~SparseLU() = default;
SparseLU::SparseLU(SparseLU&&) noexcept = default;
SparseLU& SparseLU::operator=(SparseLU&&) noexcept = default;

bool SparseLU::factor(std::size_t n, std::span<const std::size_t> row_start,
                      std::span<const std::uint32_t> column_index, std::span<const double> values,
                      double scale) {
  Factors& f = *factors_;
  std::vector<Eigen::Triplet<double>>& entries = f.entries;
  entries.clear();
  for (std::size_t i = 0; i < n; ++i) {
    entries.emplace_back(int(i), int(i), 1.0);
    for (std::size_t k = row_start[i]; k < row_start[i + 1]; ++k)
      if (column_index[k] < n) entries.emplace_back(int(i), int(column_index[k]), scale * values[k]);
  }
  f.matrix.resize(Eigen::Index(n), Eigen::Index(n));
  f.matrix.setFromTriplets(entries.begin(), entries.end());  // sums the diagonal's two
  f.matrix.makeCompressed();
  // The pattern never changes: its ordering and symbolic analysis are done once.
  if (!f.analyzed || f.n != n) {
    f.lu.analyzePattern(f.matrix);
    f.analyzed = true;
    f.n = n;
  }
  f.lu.factorize(f.matrix);
  return f.lu.info() == Eigen::Success;
}

void SparseLU::solve(double* b) const {
  Eigen::Map<Eigen::VectorXd> rhs(b, Eigen::Index(factors_->n));
  factors_->x = factors_->lu.solve(rhs);
  rhs = factors_->x;
}

void SparseLU::solve_transposed(double* b) const {
  Eigen::Map<Eigen::VectorXd> rhs(b, Eigen::Index(factors_->n));
  factors_->x = factors_->lu.transpose().solve(rhs);
  rhs = factors_->x;
}

}  // namespace backsweep
