#pragma once
// Objective terms and initial states given as config expressions, as the functors the
// engine takes (adjoint/objective.hpp). Terms differentiate themselves by reverse mode
// over their compiled expressions, so an objective over many states costs no more than
// evaluating it. visit_config_objective() builds the Objective a gradient config names,
// with a running-cost term only when the config has an integral.
#include <any>
#include <cstddef>
#include <map>
#include <memory>
#include <type_traits>
#include <typeindex>
#include <vector>

#include "adjoint/objective.hpp"
#include "fit/noise_model.hpp"
#include "io/assembly/fit_config.hpp"
#include "io/assembly/gradient_config.hpp"

namespace backsweep {

namespace detail {
// The work space of reverse mode over expressions: a tape per scalar type, owned by the
// objective that uses it (shared by its copies, which one run uses in one thread).
class ExpressionTapes {
 public:
  template <class T>
  std::vector<T>& of() {
    if constexpr (std::is_same_v<T, double>) return doubles_;
    else {
      std::any& tape = others_[std::type_index(typeid(T))];
      if (!tape.has_value()) tape = std::vector<T>();
      return std::any_cast<std::vector<T>&>(tape);
    }
  }

 private:
  std::vector<double> doubles_;
  std::map<std::type_index, std::any> others_;  // Dual numbers' tapes
};
using SharedTapes = std::shared_ptr<ExpressionTapes>;

// The value of an expression of (t, y, p) and its gradient with respect to y and p
// (grad_p may be null).
template <class T>
T expression_gradient(const Expression& e, const T& t, const T* y, const T* p, T* grad_y, T* grad_p,
                      ExpressionTapes& tapes) {
  const T* segments[] = {&t, y, p};
  T* gradients[] = {nullptr, grad_y, grad_p};
  return e.gradient(segments, gradients, tapes.of<T>());
}
}  // namespace detail

// [objective] terminal: an expression at time.end (0 when absent).
struct ConfigTerminal {
  const GradientConfig* config;
  detail::SharedTapes tapes = std::make_shared<detail::ExpressionTapes>();
  template <class T>
  T operator()(const T* y, const T* p) const {
    const auto& e = config->terminal;
    return e ? evaluate_at(*e, T(config->simulate.integrate.t1), y, p) : T(0);
  }
  template <class T>
  T gradient(const T* y, const T* p, T* grad_y, T* grad_p) const {
    if (!config->terminal) {
      for (std::size_t i = 0; i < config->simulate.state_names.size(); ++i) grad_y[i] = T(0);
      if (grad_p)
        for (std::size_t j = 0; j < config->simulate.parameter_names.size(); ++j) grad_p[j] = T(0);
      return T(0);
    }
    return detail::expression_gradient(*config->terminal, T(config->simulate.integrate.t1), y, p,
                                       grad_y, grad_p, *tapes);
  }
};

// [objective] integral: the running cost.
struct ConfigRunning {
  const GradientConfig* config;
  detail::SharedTapes tapes = std::make_shared<detail::ExpressionTapes>();
  template <class T>
  T operator()(T t, const T* y, const T* p) const {
    return evaluate_at(*config->integral, t, y, p);
  }
  template <class T>
  T gradient(T t, const T* y, const T* p, T* grad_y, T* grad_p) const {
    return detail::expression_gradient(*config->integral, t, y, p, grad_y, grad_p, *tapes);
  }
};

// [[objective.observation]] k: a formula at its time.
struct ConfigObservation {
  const GradientConfig* config;
  detail::SharedTapes tapes = std::make_shared<detail::ExpressionTapes>();
  template <class T>
  T operator()(std::size_t k, const T* y, const T* p) const {
    const auto& o = config->observations[k];
    return evaluate_at(o.formula, T(o.time), y, p);
  }
  template <class T>
  T gradient(std::size_t k, const T* y, const T* p, T* grad_y, T* grad_p) const {
    const auto& o = config->observations[k];
    return detail::expression_gradient(o.formula, T(o.time), y, p, grad_y, grad_p, *tapes);
  }
};

// [initial]: numbers, or expressions of the parameters through which dJ/dp flows too.
// An ensemble member brings its own numbers.
struct ConfigInitial {
  const SimulateConfig* config;
  const std::vector<double>* numbers = nullptr;  // default: the config's
  template <class T>
  void operator()(const T* p, T* y0) const {
    const std::vector<double>& values = numbers ? *numbers : config->initial_state;
    for (std::size_t i = 0; i < values.size(); ++i) {
      const auto& e = config->initial_expressions[i];
      y0[i] = e ? e->evaluate(p) : T(values[i]);
    }
  }
};

// Calls f(objective) with the Objective of a gradient config: terminal, observations and
// initial state always, the running cost only when there is an integral.
template <class F>
decltype(auto) visit_config_objective(const GradientConfig& config, F&& f) {
  std::vector<double> times;
  for (const auto& o : config.observations) times.push_back(o.time);
  if (config.integral) {
    using Full = Objective<ConfigTerminal, ConfigRunning, ConfigObservation, ConfigInitial>;
    return f(Full{{&config}, {&config}, {&config}, times, {&config.simulate}});
  }
  using NoIntegral = Objective<ConfigTerminal, NoTerm, ConfigObservation, ConfigInitial>;
  return f(NoIntegral{{&config}, {}, {&config}, times, {&config.simulate}});
}

// Fit configs: [[observables]] o as h(o, t, y, p).
struct ConfigObservables {
  const FitConfig* config;
  template <class T>
  T operator()(std::size_t o, T t, const T* y, const T* p) const {
    return evaluate_at(config->observables[o].formula, t, y, p);
  }
};

// Fit configs: the initial state of experiment e: its own numbers, else [initial]'s
// numbers or expressions of the parameters.
struct ConfigExperimentInitial {
  const FitConfig* config;
  template <class T>
  void operator()(std::size_t e, const T* p, T* y0) const {
    const FitExperimentConfig& experiment = config->experiments[e];
    const auto* formulas = e < config->experiment_initial.size() ? &config->experiment_initial[e] : nullptr;
    for (std::size_t i = 0; i < experiment.initial_state.size(); ++i) {
      const auto& expression = config->simulate.initial_expressions[i];
      if (formulas && i < formulas->size() && (*formulas)[i]) y0[i] = (*formulas)[i]->evaluate(p);
      else y0[i] = !experiment.initial_overridden[i] && expression ? expression->evaluate(p)
                                                                   : T(experiment.initial_state[i]);
    }
  }
};

// Fit configs: a measurement's misfit. An observable with a noise formula (PEtab's) gives
// the measurement's whole negative log-likelihood under its noise model; the others are
// Gaussian of the data's sigma (GaussianNoise).
struct ConfigNoise {
  const FitConfig* config;
  template <class T>
  T operator()(const Measurement& m, const T& h, const T& t, const T* y, const T* p, double sigma) const {
    const FitObservable& o = config->observables[m.observable];
    if (!o.noise) return GaussianNoise{}(m, h, t, y, p, sigma);
    return o.noise_model.negative_log_likelihood(h, m.value, evaluate_at(*o.noise, t, y, p));
  }
  double constant(const Measurement& m, double sigma) const {
    return config->observables[m.observable].noise ? 0.0 : GaussianNoise{}.constant(m, sigma);
  }
  double residual(const Measurement& m, double h, double t, const double* y, const double* p, double sigma) const {
    const FitObservable& o = config->observables[m.observable];
    if (!o.noise) return GaussianNoise{}.residual(m, h, t, y, p, sigma);
    return o.noise_model.residual(h, m.value, evaluate_at(*o.noise, t, y, p));
  }
};

}  // namespace backsweep
