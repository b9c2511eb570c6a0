#pragma once
// What the forward tangent's first pass watches besides the objective: the growth of its
// columns, the solution's derivatives by the parameters and initial state (the growth
// monitor, forward in time: they grow like exp(lambda_1 t) as the adjoint does backward),
// and, for an explicit method, whether stability held the steps (the stiffness probe).
#include <cmath>
#include <cstddef>
#include <optional>
#include <vector>

#include "adjoint/growth_monitor.hpp"
#include "adjoint/stiffness.hpp"
#include "solvers/method.hpp"
#include "solvers/step_grid.hpp"
#include "solvers/stepper.hpp"

namespace backsweep::detail {

template <class System>
class TangentWatch {
 public:
  // n: the model's states (a running cost's quadrature, past them, is not watched).
  TangentWatch(const System& system, const Method& method, const MonitorOptions& options,
               const StepSequence& sequence, std::size_t n, const std::vector<double>& p)
      : monitor_(options, sequence.t_start(), sequence.t_end(), sequence.size(), Watched::tangent), n_(n), p_(p) {
    if (method.is_explicit()) stiffness_.emplace(system, real_stability_limit(*method.tableau));
  }

  // After the step that reached y (every state of the system, on Dual lanes); `value`:
  // the objective's terms met so far.
  template <class D>
  void after_step(const StepInterval& step, const D* y, std::size_t size, const D& value) {
    columns_.resize(n_ * D::lanes);
    for (std::size_t i = 0; i < n_; ++i)
      for (int k = 0; k < D::lanes; ++k) columns_[i * D::lanes + std::size_t(k)] = y[i].d[k];
    monitor_.record(step.t_next, columns_.data(), columns_.size(), [&] {
      double squares = 0.0;
      for (int k = 0; k < D::lanes; ++k) squares += value.d[k] * value.d[k];
      return std::sqrt(squares);
    });
    if (!stiffness_) return;
    values_.resize(size);
    for (std::size_t i = 0; i < size; ++i) values_[i] = y[i].v;
    stiffness_->after_step(step.t_next, step.h, values_.data(), p_.data());
  }

  GrowthReport report() const { return monitor_.report(); }
  std::optional<StiffnessEstimate> stiffness() const {
    if (!stiffness_) return std::nullopt;
    return stiffness_->estimate();
  }

 private:
  GrowthMonitor monitor_;
  std::optional<StiffnessProbe<System>> stiffness_;
  std::size_t n_;
  const std::vector<double>& p_;
  std::vector<double> columns_, values_;
};

}  // namespace backsweep::detail
