#pragma once
// SUNDIALS CVODES as a backend: BDF (stiff, Newton with a dense Jacobian from our
// derivative layer) or Adams (non-stiff, fixed-point), forward solves and CVODES' own
// adjoint (CVodeF/CVodeB with its checkpoints and polynomial interpolation, backward
// quadratures for dJ/dp). This is a continuous adjoint: its accuracy follows the
// tolerances, unlike the discrete adjoint of our own steppers, which is exact for the
// computed solution. SUNDIALS stays behind this header: a model reaches it through the
// OdeSystem interface (ModelSystem adapts any Model), and only cvodes.cpp includes it.
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "models/derivatives.hpp"
#include "models/model.hpp"
#include "solvers/integrate_options.hpp"

namespace backsweep {

// y' = f(t, y) with its derivatives, parameters bound.
class OdeSystem {
 public:
  virtual ~OdeSystem() = default;
  virtual std::size_t size() const = 0;
  virtual std::size_t param_size() const = 0;
  virtual void rhs(double t, const double* y, double* dydt) = 0;
  virtual void jacobian(double t, const double* y, double* dfdy) = 0;  // row-major n x n
  // vjp_y = lambdaᵀ df/dy, vjp_p = lambdaᵀ df/dp.
  virtual void vjp(double t, const double* y, const double* lambda, double* vjp_y, double* vjp_p) = 0;
};

template <Model M>
class ModelSystem final : public OdeSystem {
 public:
  ModelSystem(const M& model, const double* p)
      : model_(model), p_(p), derivatives_(model), n_(state_size(model)), np_(backsweep::param_size(model)) {}
  std::size_t size() const override { return n_; }
  std::size_t param_size() const override { return np_; }
  void rhs(double t, const double* y, double* dydt) override { model_(t, y, p_, dydt); }
  void jacobian(double t, const double* y, double* dfdy) override { derivatives_.jacobian(t, y, p_, dfdy); }
  void vjp(double t, const double* y, const double* lambda, double* vjp_y, double* vjp_p) override {
    derivatives_.vjp(t, y, p_, lambda, vjp_y, vjp_p);
  }

 private:
  const M& model_;
  const double* p_;
  Derivatives<M, double> derivatives_;
  std::size_t n_, np_;
};

struct CvodesCounts {
  std::size_t steps = 0, rhs_evaluations = 0, jacobian_evaluations = 0;
  std::size_t backward_steps = 0, backward_rhs_evaluations = 0, checkpoints = 0;
};

// y from options.t0 to options.t1 (in place), `observer(t, y)` at the output times, or
// after every step when there are none; the options' rtol, atol and max_steps apply.
IntegrateResult cvodes_integrate(OdeSystem& system, bool bdf, double* y, const IntegrateOptions& options,
                                 const std::function<void(double, const double*)>& observer,
                                 CvodesCounts* counts = nullptr);

// The adjoint of J = g(y(T)) + sum_k l_k(y(t_k)): the forward solve stops at `stops`
// (ascending, in (t0, T], T last) and calls at_stop(k, y); then lambda = seed(y(T)) is
// integrated backward, jump(k, lambda, mu) adding the terms at stop k < last on the way.
// Returns lambda(t0) in `lambda` and mu = ∫ lambdaᵀ f_p dt (+ the jumps') in `mu`.
struct CvodesAdjointRequest {
  std::vector<double> stops;
  std::function<void(std::size_t, const double*)> at_stop;
  std::function<void(const double* y_end, double* lambda, double* mu)> seed;
  std::function<void(std::size_t, double* lambda, double* mu)> jump;
  std::size_t steps_between_checkpoints = 100;
};
IntegrateResult cvodes_adjoint(OdeSystem& system, bool bdf, std::vector<double> y0,
                               const IntegrateOptions& options, const CvodesAdjointRequest& request,
                               std::vector<double>& lambda, std::vector<double>& mu,
                               CvodesCounts* counts = nullptr);

}  // namespace backsweep
