#pragma once
// Hessian-vector products by forward-over-adjoint: the adjoint engine itself runs on
// Dual numbers whose single lane carries the direction v, so the tangent of the
// gradient is H v (with respect to the parameters).
#include <vector>

#include "adjoint/discrete_adjoint.hpp"

namespace backsweep {

template <Model M, class Obj>
std::vector<double> hessian_vector_product(const GradientProblem<M, Obj>& problem,
                                           const std::vector<double>& v,
                                           const CheckpointOptions& checkpointing = {}) {
  using D = Dual<double, 1>;
  std::vector<D> p(problem.p.size()), y0(problem.y0.begin(), problem.y0.end());
  for (std::size_t j = 0; j < p.size(); ++j) {
    p[j] = D(problem.p[j]);
    p[j].d[0] = v[j];
  }
  const GradientResult<D> result = gradient<D>(problem, y0, p, checkpointing);
  std::vector<double> hv(p.size());
  for (std::size_t j = 0; j < p.size(); ++j) hv[j] = result.dJ_dp[j].d[0];
  return hv;
}

}  // namespace backsweep
