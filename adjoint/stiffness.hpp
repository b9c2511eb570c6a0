#pragma once
// Stiffness of an explicit method's run: steps limited by stability rather than accuracy.
// An explicit Runge-Kutta method is stable for h lambda on the negative real axis down to
// -beta (its real stability limit: 2 for Euler, 2.79 for RK4, 3.3 for Dormand-Prince). A
// problem is stiff for it where h rho(J) sits near beta: an adaptive controller is then
// held there by instability, not by the error, and the adjoint's growth is the method's,
// not chaos. The backward sweep samples h rho(J) / beta at a bounded number of steps
// (rho(J) by power iteration on VJPs at y_n, J and Jᵀ having the same spectrum) and calls
// the run stiff when the median reaches one half (Shampine's idea, as in LSODA's switch).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

#include "models/derivatives.hpp"
#include "solvers/butcher_tableau.hpp"

namespace backsweep {

// beta: the largest x with |R(-s)| <= 1 for all 0 <= s <= x, R the stability polynomial
// of the explicit tableau; Inf for an implicit one.
double real_stability_limit(const ButcherTableau& tableau);

struct StiffnessEstimate {
  double ratio = 0.0;  // median of h rho(J) / beta over the samples
  std::size_t samples = 0;
  bool stiff() const { return samples > 0 && ratio >= 0.5; }
};

inline constexpr std::size_t kStiffnessSamples = 128;  // kept at most (bytes in the budget)

template <Model System>
class StiffnessProbe {
 public:
  static constexpr std::size_t kMaxSamples = kStiffnessSamples, kIterations = 8;

  StiffnessProbe(const System& system, double beta)
      : derivatives_(system), beta_(beta), n_(backsweep::state_size(system)),
        v_(n_), w_(n_), p_bar_(backsweep::param_size(system)) {}

  // Called after every backward step; samples every stride-th, the stride doubling (and
  // the samples thinning by half) whenever kMaxSamples are kept.
  void after_step(double t, double h, const double* y, const double* p) {
    if (since_ % stride_ == 0) {
      ratios_.push_back(std::abs(h) * spectral_radius(t, y, p) / beta_);
      if (ratios_.size() == kMaxSamples) {
        for (std::size_t k = 0; k < kMaxSamples / 2; ++k) ratios_[k] = ratios_[2 * k];
        ratios_.resize(kMaxSamples / 2);
        stride_ *= 2;
      }
    }
    ++since_;
  }

  StiffnessEstimate estimate() const {
    StiffnessEstimate e;
    e.samples = ratios_.size();
    if (ratios_.empty()) return e;
    std::vector<double> sorted = ratios_;
    std::nth_element(sorted.begin(), sorted.begin() + std::ptrdiff_t(sorted.size() / 2), sorted.end());
    e.ratio = sorted[sorted.size() / 2];
    return e;
  }

 private:
  // |Jᵀ|'s dominant eigenvalue magnitude, from the growth of two consecutive products
  // (a complex pair rotates a single product's norm).
  double spectral_radius(double t, const double* y, const double* p) {
    for (std::size_t k = 0; k < n_; ++k) v_[k] = (k % 2 ? -1.0 : 1.0) / (1.0 + double(k % 7));
    normalize(v_);
    double before = 1.0, radius = 0.0;
    for (std::size_t i = 0; i < kIterations; ++i) {
      derivatives_.vjp(t, y, p, v_.data(), w_.data(), p_bar_.data());
      const double grown = norm(w_);
      if (!(grown > 0.0) || !std::isfinite(grown)) return grown > 0.0 ? grown : 0.0;
      radius = std::sqrt(before * grown);
      before = grown;
      for (std::size_t k = 0; k < n_; ++k) v_[k] = w_[k] / grown;
    }
    return radius;
  }
  static double norm(const std::vector<double>& x) {
    double s = 0.0;
    for (double v : x) s += v * v;
    return std::sqrt(s);
  }
  static void normalize(std::vector<double>& x) {
    const double s = norm(x);
    for (double& v : x) v /= s;
  }

  Derivatives<System, double> derivatives_;
  double beta_;
  std::size_t n_, since_ = 0, stride_ = 64;
  std::vector<double> v_, w_, p_bar_, ratios_;
};

}  // namespace backsweep
