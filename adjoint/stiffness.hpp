#pragma once
// Stiffness of an explicit method's run: steps limited by stability rather than accuracy.
// An explicit Runge-Kutta method is stable for h lambda on the negative real axis down to
// -beta (its real stability limit: 2 for Euler, 2.79 for RK4, 3.3 for Dormand-Prince). A
// problem is stiff for it where h rho(J) sits near beta: an adaptive controller is then
// held there by instability, not by the error, and the adjoint's growth is the method's,
// not chaos. The backward sweep samples h rho(J) / beta at a bounded number of steps
// (rho(J) by power iteration on VJPs at y_n, J and Jᵀ having the same spectrum) and calls
// the run stiff when the median reaches one half (Shampine's idea, as in LSODA's switch).
// A sample at 1 or beyond where the dominant mode decays is instability: a fixed step
// amplifies, at every step, a mode the model damps (an adaptive controller hovers there
// on a stiff problem, its error estimate holding the mode down).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
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
  // The first sample at h rho(J) / beta >= 1 where the dominant mode decays: its time and
  // ratio (NaN and 0 when none).
  double unstable_time = NAN, unstable_ratio = 0.0;
  bool stiff() const { return samples > 0 && ratio >= 0.5; }
  bool unstable() const { return unstable_ratio >= 1.0; }
};

inline constexpr std::size_t kStiffnessSamples = 128;  // kept at most (bytes in the budget)

// A start vector for power iteration with every mode in it: fixed pseudo-random values
// (a smooth or alternating vector misses the modes along a grid's other axes: it put a
// 3-D heat run's h rho / beta at 0.33 where it was 0.68).
inline void power_iteration_start(std::vector<double>& v) {
  std::uint64_t state = 0x9e3779b97f4a7c15u;
  for (double& x : v) {  // splitmix64, mapped to [-1, 1)
    std::uint64_t z = (state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    x = double((z ^ (z >> 31)) >> 11) * 0x1p-52 - 1.0;
  }
}

// rho(J) at (t, y, p) by power iteration on VJPs (J and Jᵀ have one spectrum): the growth
// of two consecutive products (a complex pair rotates a single product's norm). A lower
// bound for a normal J, within a few percent of rho after 32 iterations on a grid's
// Laplacian. v, w and p_bar: buffers of the state's and the parameters' sizes. `rayleigh`,
// if given: vᵀJv of the last iterate, the dominant eigenvalue's real part (normal J).
template <class Derivatives>
double spectral_radius(Derivatives& derivatives, double t, const double* y, const double* p, std::vector<double>& v,
                       std::vector<double>& w, std::vector<double>& p_bar, std::size_t iterations,
                       double* rayleigh = nullptr) {
  const auto norm = [](const std::vector<double>& x) {
    double s = 0.0;
    for (double value : x) s += value * value;
    return std::sqrt(s);
  };
  power_iteration_start(v);
  const double start = norm(v);
  for (double& x : v) x /= start;
  double before = 1.0, radius = 0.0;
  for (std::size_t i = 0; i < iterations; ++i) {
    derivatives.vjp(t, y, p, v.data(), w.data(), p_bar.data());
    const double grown = norm(w);
    if (!(grown > 0.0) || !std::isfinite(grown)) return grown > 0.0 ? grown : 0.0;
    if (rayleigh) {
      *rayleigh = 0.0;
      for (std::size_t k = 0; k < v.size(); ++k) *rayleigh += v[k] * w[k];
    }
    radius = std::sqrt(before * grown);
    before = grown;
    for (std::size_t k = 0; k < v.size(); ++k) v[k] = w[k] / grown;
  }
  return radius;
}

// h rho(J) / beta at (t, y, p) for an explicit tableau: from 1 on, a fixed step h is
// unstable for the problem linearised there, and the run blows up. 0 where that cannot be
// said: an implicit tableau, a dominant eigenvalue whose real part is not negative (growth
// is the problem's own, not the step's), or rho(J) not finite there (sqrt(u) at u = 0).
template <Model System>
double stability_ratio(const System& system, const ButcherTableau& tableau, double t, const double* y, const double* p,
                       double h, std::size_t iterations = 32) {
  const double beta = real_stability_limit(tableau);
  if (!std::isfinite(beta)) return 0.0;
  Derivatives<System, double> derivatives(system);
  std::vector<double> v(backsweep::state_size(system)), w(v.size()), p_bar(backsweep::param_size(system));
  double rayleigh = 0.0;
  const double rho = spectral_radius(derivatives, t, y, p, v, w, p_bar, iterations, &rayleigh);
  return std::isfinite(rho) && rayleigh < 0.0 ? std::abs(h) * rho / beta : 0.0;
}

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
      double rayleigh = 0.0;
      ratios_.push_back(std::abs(h) * spectral_radius(t, y, p, rayleigh) / beta_);
      if (ratios_.back() >= 1.0 && rayleigh < 0.0 && !(unstable_ratio_ >= 1.0)) {
        unstable_time_ = t;
        unstable_ratio_ = ratios_.back();
      }
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
    e.unstable_time = unstable_time_;
    e.unstable_ratio = unstable_ratio_;
    if (ratios_.empty()) return e;
    std::vector<double> sorted = ratios_;
    std::nth_element(sorted.begin(), sorted.begin() + std::ptrdiff_t(sorted.size() / 2), sorted.end());
    e.ratio = sorted[sorted.size() / 2];
    return e;
  }

 private:
  double spectral_radius(double t, const double* y, const double* p, double& rayleigh) {
    return backsweep::spectral_radius(derivatives_, t, y, p, v_, w_, p_bar_, kIterations, &rayleigh);
  }

  Derivatives<System, double> derivatives_;
  double beta_;
  std::size_t n_, since_ = 0, stride_ = 64;
  std::vector<double> v_, w_, p_bar_, ratios_;
  double unstable_time_ = NAN, unstable_ratio_ = 0.0;
};

// The message of an unstable run: where, how far past the limit, and what to do.
std::string describe_instability(const StiffnessEstimate& estimate, std::string_view method, double step);

}  // namespace backsweep
