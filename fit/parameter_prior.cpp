#include "fit/parameter_prior.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

namespace backsweep {

namespace {

using Kind = ParameterPrior::Kind;

// P(a, x) = γ(a, x) / Γ(a): its series below a + 1, else 1 - its continued fraction for
// Q(a, x) (modified Lentz), each to round-off.
double regularized_gamma(double a, double x) {
  if (!(x > 0.0)) return 0.0;
  if (std::isinf(x)) return 1.0;
  const double prefactor = std::exp(a * std::log(x) - x - std::lgamma(a));
  if (x < a + 1.0) {
    double term = 1.0 / a, sum = term;
    for (int n = 1; n < 1000 && std::abs(term) > 1e-17 * std::abs(sum); ++n) sum += term *= x / (a + n);
    return prefactor * sum;
  }
  const double tiny = 1e-300;
  double b = x + 1.0 - a, c = 1.0 / tiny, d = 1.0 / b, fraction = d;
  for (int n = 1; n < 1000; ++n) {
    const double an = -n * (n - a);
    b += 2.0;
    d = an * d + b;
    d = std::abs(d) < tiny ? tiny : d;
    c = b + an / c;
    c = std::abs(c) < tiny ? tiny : c;
    d = 1.0 / d;
    const double step = d * c;
    fraction *= step;
    if (std::abs(step - 1.0) < 1e-16) break;
  }
  return 1.0 - prefactor * fraction;
}

double normal_cdf(double z) { return 0.5 * std::erfc(-z / std::numbers::sqrt2); }
double laplace_cdf(double z) { return z < 0.0 ? 0.5 * std::exp(z) : 1.0 - 0.5 * std::exp(-z); }

// F(x) of the untruncated distribution.
double cdf(const ParameterPrior& prior, double x) {
  const std::vector<double>& q = prior.parameters;
  const auto log_of = [x] { return x > 0.0 ? std::log(x) : -std::numeric_limits<double>::infinity(); };
  switch (prior.kind) {
    case Kind::uniform: return std::clamp((x - q[0]) / (q[1] - q[0]), 0.0, 1.0);
    case Kind::normal: return normal_cdf((x - q[0]) / q[1]);
    case Kind::laplace: return laplace_cdf((x - q[0]) / q[1]);
    case Kind::log_normal: return x > 0.0 ? normal_cdf((log_of() - q[0]) / q[1]) : 0.0;
    case Kind::log_laplace: return x > 0.0 ? laplace_cdf((log_of() - q[0]) / q[1]) : 0.0;
    case Kind::cauchy: return 0.5 + std::atan((x - q[0]) / q[1]) / std::numbers::pi;
    case Kind::chi_square: return regularized_gamma(0.5 * q[0], 0.5 * x);
    case Kind::exponential: return x > 0.0 ? -std::expm1(-x / q[0]) : 0.0;
    case Kind::gamma: return regularized_gamma(q[0], x / q[1]);
    case Kind::log_uniform:
      return x > 0.0 ? std::clamp((log_of() - std::log(q[0])) / (std::log(q[1]) - std::log(q[0])), 0.0, 1.0) : 0.0;
    case Kind::rayleigh: return x > 0.0 ? -std::expm1(-x * x / (2.0 * q[0] * q[0])) : 0.0;
  }
  return NAN;
}

// log f(x) of the untruncated density.
double log_density(const ParameterPrior& prior, double x) {
  const std::vector<double>& q = prior.parameters;
  constexpr double minus_inf = -std::numeric_limits<double>::infinity();
  const double half_log_2pi = 0.5 * std::log(2.0 * std::numbers::pi);
  const bool positive = x > 0.0;
  switch (prior.kind) {
    case Kind::uniform: return x >= q[0] && x <= q[1] ? -std::log(q[1] - q[0]) : minus_inf;
    case Kind::normal: {
      const double z = (x - q[0]) / q[1];
      return -std::log(q[1]) - half_log_2pi - 0.5 * z * z;
    }
    case Kind::laplace: return -std::log(2.0 * q[1]) - std::abs(x - q[0]) / q[1];
    case Kind::log_normal: {
      if (!positive) return minus_inf;
      const double z = (std::log(x) - q[0]) / q[1];
      return -std::log(x) - std::log(q[1]) - half_log_2pi - 0.5 * z * z;
    }
    case Kind::log_laplace:
      return positive ? -std::log(2.0 * q[1] * x) - std::abs(std::log(x) - q[0]) / q[1] : minus_inf;
    case Kind::cauchy: {
      const double z = (x - q[0]) / q[1];
      return -std::log(std::numbers::pi * q[1] * (1.0 + z * z));
    }
    case Kind::chi_square: {
      const double k = 0.5 * q[0];
      return positive ? (k - 1.0) * std::log(x) - 0.5 * x - k * std::numbers::ln2 - std::lgamma(k) : minus_inf;
    }
    case Kind::exponential: return positive ? -std::log(q[0]) - x / q[0] : minus_inf;
    case Kind::gamma:
      return positive ? (q[0] - 1.0) * std::log(x) - x / q[1] - std::lgamma(q[0]) - q[0] * std::log(q[1]) : minus_inf;
    case Kind::log_uniform:
      return x >= q[0] && x <= q[1] ? -std::log(x) - std::log(std::log(q[1]) - std::log(q[0])) : minus_inf;
    case Kind::rayleigh: return positive ? std::log(x) - 2.0 * std::log(q[0]) - x * x / (2.0 * q[0] * q[0]) : minus_inf;
  }
  return NAN;
}

double sign(double v) { return v > 0.0 ? 1.0 : v < 0.0 ? -1.0 : 0.0; }

}  // namespace

std::optional<PriorName> prior_name(std::string_view name) {
  struct Entry {
    std::string_view name;
    PriorName prior;
  };
  static constexpr Entry kNames[] = {
      {"uniform", {Kind::uniform, false, 2}},          {"normal", {Kind::normal, false, 2}},
      {"laplace", {Kind::laplace, false, 2}},          {"log-normal", {Kind::log_normal, false, 2}},
      {"logNormal", {Kind::log_normal, false, 2}},     {"log-laplace", {Kind::log_laplace, false, 2}},
      {"logLaplace", {Kind::log_laplace, false, 2}},   {"cauchy", {Kind::cauchy, false, 2}},
      {"chisquare", {Kind::chi_square, false, 1}},     {"exponential", {Kind::exponential, false, 1}},
      {"gamma", {Kind::gamma, false, 2}},              {"log-uniform", {Kind::log_uniform, false, 2}},
      {"rayleigh", {Kind::rayleigh, false, 1}},        {"parameterScaleUniform", {Kind::uniform, true, 2}},
      {"parameterScaleNormal", {Kind::normal, true, 2}}, {"parameterScaleLaplace", {Kind::laplace, true, 2}},
  };
  for (const Entry& entry : kNames)
    if (entry.name == name) return entry.prior;
  return std::nullopt;
}

double log_prior(const ParameterPrior& prior, double x) {
  if (x < prior.lower || x > prior.upper) return -std::numeric_limits<double>::infinity();
  double mass = 1.0;  // F(upper) - F(lower), exactly 1 where nothing is cut off
  if (std::isfinite(prior.lower) || std::isfinite(prior.upper)) mass = cdf(prior, prior.upper) - cdf(prior, prior.lower);
  return log_density(prior, x) - std::log(mass);
}

double log_prior_slope(const ParameterPrior& prior, double x) {
  const std::vector<double>& q = prior.parameters;
  if (!std::isfinite(log_prior(prior, x))) return 0.0;
  switch (prior.kind) {
    case Kind::uniform: return 0.0;
    case Kind::normal: return -(x - q[0]) / (q[1] * q[1]);
    case Kind::laplace: return -sign(x - q[0]) / q[1];
    case Kind::log_normal: return -1.0 / x - (std::log(x) - q[0]) / (q[1] * q[1] * x);
    case Kind::log_laplace: return -1.0 / x - sign(std::log(x) - q[0]) / (q[1] * x);
    case Kind::cauchy: {
      const double z = (x - q[0]) / q[1];
      return -2.0 * z / (q[1] * (1.0 + z * z));
    }
    case Kind::chi_square: return (0.5 * q[0] - 1.0) / x - 0.5;
    case Kind::exponential: return -1.0 / q[0];
    case Kind::gamma: return (q[0] - 1.0) / x - 1.0 / q[1];
    case Kind::log_uniform: return -1.0 / x;
    case Kind::rayleigh: return 1.0 / x - x / (q[0] * q[0]);
  }
  return NAN;
}

PriorSupport prior_support(const ParameterPrior& prior) {
  PriorSupport support{prior.lower, prior.upper};
  switch (prior.kind) {
    case Kind::uniform:
    case Kind::log_uniform:
      support = {std::max(support.lower, prior.parameters[0]), std::min(support.upper, prior.parameters[1])};
      break;
    case Kind::normal:
    case Kind::laplace:
    case Kind::cauchy: break;
    default: support.lower = std::max(support.lower, 0.0);  // of positive values
  }
  return support;
}

}  // namespace backsweep
