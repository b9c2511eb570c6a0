#pragma once
// The noise models of DataFit's measurements: GaussianNoise, of the sigma the data give
// (a config's), and NoiseModel, PEtab's: a measurement m of a prediction h, both
// transformed (lin, log or log10), with normal or Laplace noise of scale sigma. Its
// negative log-likelihood is that of m itself (the transformation's Jacobian included),
// as PEtab and AMICI give it, generic in the scalar type so that its gradient flows
// through h and sigma:
//
//   r = (T(h) - T(m)) / sigma
//   normal:  1/2 log(2 pi sigma^2) + 1/2 r^2 + log J      J = 1, m, m ln 10
//   laplace: log(2 sigma) + |r| + log J
#include <cmath>
#include <numbers>
#include <string_view>

#include "fit/measurement.hpp"

namespace backsweep {

enum class Transformation { lin, log, log10 };
enum class NoiseDistribution { normal, laplace };

constexpr std::string_view to_string(Transformation t) {
  return t == Transformation::lin ? "lin" : t == Transformation::log ? "log" : "log10";
}

struct NoiseModel {
  Transformation transformation = Transformation::lin;
  NoiseDistribution distribution = NoiseDistribution::normal;

  template <class T>
  T transformed(const T& x) const {
    using std::log;
    if (transformation == Transformation::log) return log(x);
    if (transformation == Transformation::log10) return log(x) / T(std::numbers::ln10);
    return x;
  }

  // (T(h) - T(m)) / sigma: chi2 is the sum of its squares.
  template <class T>
  T residual(const T& h, double m, const T& sigma) const {
    return (transformed(h) - T(transformed(m))) / sigma;
  }

  template <class T>
  T negative_log_likelihood(const T& h, double m, const T& sigma) const {
    using std::abs;
    using std::log;
    const T r = residual(h, m, sigma);
    const double jacobian = transformation == Transformation::log     ? std::log(m)
                            : transformation == Transformation::log10 ? std::log(m * std::numbers::ln10)
                                                                      : 0.0;
    if (distribution == NoiseDistribution::laplace) return log(T(2) * sigma) + abs(r) + T(jacobian);
    return T(0.5) * log(T(2 * std::numbers::pi) * sigma * sigma) + T(0.5) * r * r + T(jacobian);
  }
};

// Gaussian noise of the sigma each measurement gives: its misfit 1/2 r^2, and
// log(sqrt(2 pi) sigma) added once as a constant. A Noise policy may instead give a
// measurement's whole negative log-likelihood as its misfit (a constant of 0), and its
// residual r, whose squares sum to chi2.
struct GaussianNoise {
  template <class T>
  T operator()(const Measurement& m, const T& h, const T& /*t*/, const T* /*y*/, const T* /*p*/, double sigma) const {
    const T r = (h - T(m.value)) / T(sigma);
    return T(0.5) * r * r;
  }
  double constant(const Measurement&, double sigma) const { return std::log(std::sqrt(2.0 * std::numbers::pi) * sigma); }
  double residual(const Measurement& m, double h, double, const double*, const double*, double sigma) const {
    return (h - m.value) / sigma;
  }
};

}  // namespace backsweep
