#pragma once
// A parameter's prior (PEtab's objective priors): a distribution of its value (or, for
// format 1's parameterScale* priors, of its value on its optimisation scale), truncated
// to [lower, upper]: log p(x) = log f(x) - log(F(upper) - F(lower)), f the density and
// F the distribution function, both in closed form (the gamma and chi-square F by the
// regularized incomplete gamma function), and d log p / dx for the gradient.
#include <cstddef>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace backsweep {

struct ParameterPrior {
  // The distribution and its parameters as PEtab orders them: uniform (a, b), normal
  // (mean, sd), laplace (location, scale), log_normal and log_laplace (those of log x),
  // cauchy (location, scale), chi_square (degrees of freedom), exponential (scale), gamma
  // (shape, scale), log_uniform (a, b), rayleigh (scale).
  enum class Kind { uniform, normal, laplace, log_normal, log_laplace, cauchy, chi_square, exponential, gamma,
                    log_uniform, rayleigh };
  Kind kind = Kind::uniform;
  std::vector<double> parameters;
  double lower = -std::numeric_limits<double>::infinity();  // the truncation
  double upper = std::numeric_limits<double>::infinity();
  bool on_scale = false;  // of the parameter on its optimisation scale
  // Format 2's uniform prior on the bounds of a parameter its table gives none: part of the
  // log-posterior the problem reports, not of the objective a fit minimises.
  bool implicit = false;
};

// The kind PEtab's name gives (format 1's objectivePriorType, with on_scale for its
// parameterScale* names; format 2's priorDistribution), and how many parameters it takes.
struct PriorName {
  ParameterPrior::Kind kind;
  bool on_scale;
  std::size_t parameters;
};
std::optional<PriorName> prior_name(std::string_view name);

// log p(x), -inf outside the support or the truncation.
double log_prior(const ParameterPrior& prior, double x);
// d log p / dx (0 outside the support).
double log_prior_slope(const ParameterPrior& prior, double x);

// Where log p is finite: the distribution's support within the truncation (a fit keeps
// its parameters there).
struct PriorSupport {
  double lower, upper;
};
PriorSupport prior_support(const ParameterPrior& prior);

}  // namespace backsweep
