#pragma once
// FitExperiments: what a fit knows of each of its experiments apart from its data: its
// parameter vector at theta (the estimated values and the aliases in place), its initial
// state (from the steady state of another experiment where it is pre-equilibrated,
// fit/steady_state.hpp), and the directions of both along the estimated parameters that
// forward sensitivities start from. DataFit (fit/data_fit.hpp) adds up the misfits.
#include <algorithm>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fit/estimated_parameter.hpp"
#include "fit/steady_state.hpp"
#include "models/dual.hpp"
#include "solvers/method.hpp"
#include "solvers/solve.hpp"

namespace backsweep {

// InitialState: initial(e, p, y0) writes the initial state of experiment e, generic in
// the scalar type; `parameters` holds each experiment's parameter vector (the estimated
// entries are replaced by theta).
template <Model M, class InitialState>
class FitExperiments {
 public:
  FitExperiments(const M& model, const Method& method, const IntegrateOptions& integrate, InitialState initial,
                 std::vector<std::vector<double>> parameters, std::vector<EstimatedParameter> estimated)
      : model_(model), method_(method), integrate_(integrate), initial_(initial), parameters_(std::move(parameters)),
        estimated_(std::move(estimated)) {}

  // Per experiment, parameters that take another's value: (target, source) pairs, applied
  // in order once theta is in place (a PEtab condition that maps a model parameter to an
  // estimated one); dJ/d source gathers dJ/d target.
  std::vector<std::vector<std::pair<std::size_t, std::size_t>>> parameter_aliases;

  // Parameters an experiment sets to formulas of the others (a PEtab condition's), after
  // theta and the aliases: derive(e, p) overwrites them in p, in values and on Dual lanes;
  // dJ/dtheta then goes through them. Unset: none anywhere.
  using Lanes = Dual<double, kDerivativeLanes>;
  std::function<void(std::size_t, double*)> derive_values;
  std::function<void(std::size_t, Lanes*)> derive_slopes;

  // The experiment's parameter vector with theta in place.
  std::vector<double> parameters(std::size_t e, const std::vector<double>& theta) const {
    std::vector<double> p = parameters_[e];
    for (std::size_t i = 0; i < estimated_.size(); ++i)
      p[estimated_[i].index] = estimated_[i].to_value(theta[i]);
    for (const auto& [target, source] : aliases(e)) p[target] = p[source];
    if (derive_values) derive_values(e, p.data());
    return p;
  }

  // Per experiment (or empty, or null): events in place of the model's (PEtab's later
  // periods: the model's events and the changes at the periods' starts).
  std::vector<std::shared_ptr<const TimeEvents>> experiment_events;

  // The integration options of experiment e: its events.
  IntegrateOptions options_of(std::size_t e) const {
    IntegrateOptions options = integrate_;
    if (e < experiment_events.size() && experiment_events[e]) options.events = experiment_events[e];
    return options;
  }

  // Per experiment (or empty): where it starts from the steady state of another
  // (fit/steady_state.hpp), as PEtab's pre-equilibration does.
  std::vector<std::optional<Preequilibration>> preequilibration;
  // When set: restart(t, start, p, steady) sets the states a pre-equilibrated start reads
  // afresh (SBML switches: their relation) in `steady`, from the experiment's start state
  // at t (the steady state where kept, its own values elsewhere) and its parameters.
  std::function<void(double, const double*, const double*, double*)> restart;

  // Experiment e's initial state at theta, pre-equilibrated where it is.
  bool start_state(std::size_t e, const std::vector<double>& theta, std::vector<double>& y, std::string& failure) const {
    const std::vector<double> p = parameters(e, theta);
    y.resize(state_size(model_));
    initial_(e, p.data(), y.data());
    if (!preequilibrated(e)) return true;
    std::vector<double> steady;
    SensitivityDirections none;
    if (!settled(e, theta, Slopes::none, steady, none, failure)) {
      failure = "experiment " + std::to_string(e) + ": " + failure;
      return false;
    }
    start_from(e, steady.data(), y.data());
    return true;
  }

 protected:
  bool preequilibrated(std::size_t e) const { return e < preequilibration.size() && preequilibration[e]; }

  // Along each estimated parameter: nothing, its linear value or its scale.
  enum class Slopes { none, linear, scaled };

  // The steady state experiment e starts from, and its directions (as directions() gives
  // them, for `slopes`); false with `failure` set.
  bool settled(std::size_t e, const std::vector<double>& theta, Slopes slopes, std::vector<double>& y,
               SensitivityDirections& d, std::string& failure) const {
    const std::size_t from = preequilibration[e]->from;
    const std::vector<double> p = parameters(from, theta);
    if (slopes == Slopes::none) {  // values alone: no directions to seed or carry
      d = {};
      y.resize(state_size(model_));
      initial_(from, p.data(), y.data());
    } else {
      d = directions(from, theta, slopes == Slopes::scaled, y);
    }
    if (!settle(model_, method_, options_of(from), y, p.data(), d, failure)) return false;
    if (restart) {
      const std::vector<double> own = parameters(e, theta);
      std::vector<double> start(y.size());
      initial_(e, own.data(), start.data());
      start_from(e, y.data(), start.data());
      restart(options_of(e).t0, start.data(), own.data(), y.data());
    }
    return true;
  }

  // The states experiment e keeps from its steady start, written into y0.
  template <class T>
  void start_from(std::size_t e, const double* steady, T* y0) const {
    const std::vector<bool>& kept = preequilibration[e]->kept;
    for (std::size_t s = 0; s < kept.size(); ++s)
      if (kept[s]) y0[s] = T(steady[s]);
  }

  // Experiment e's initial state y and its directions along each estimated parameter (its
  // scale's slope when `scaled`, else 1): of p, and of y0 through the initial state.
  SensitivityDirections directions(std::size_t e, const std::vector<double>& theta, bool scaled,
                                   std::vector<double>& y) const {
    using D = Dual<double, kDerivativeLanes>;
    const std::vector<double> p = parameters(e, theta);
    const std::size_t q = estimated_.size(), n = state_size(model_), np = p.size();
    SensitivityDirections directions{q, std::vector<double>(q * n), std::vector<double>(q * np, 0.0)};
    y.resize(n);
    for (std::size_t first = 0; first < std::max<std::size_t>(q, 1); first += kDerivativeLanes) {
      const std::size_t last = std::min(q, first + kDerivativeLanes);
      std::vector<D> pd(p.begin(), p.end()), y0(n);
      for (std::size_t i = first; i < last; ++i)
        pd[estimated_[i].index].d[i - first] = directions.parameters[i * np + estimated_[i].index] =
            scaled ? estimated_[i].slope(theta[i]) : 1.0;
      for (const auto& [target, source] : aliases(e)) {
        pd[target] = pd[source];
        for (std::size_t i = first; i < last; ++i) directions.parameters[i * np + target] = directions.parameters[i * np + source];
      }
      if (derive_slopes) {
        derive_slopes(e, pd.data());
        for (std::size_t j = 0; j < np; ++j)
          for (std::size_t i = first; i < last; ++i) directions.parameters[i * np + j] = pd[j].d[i - first];
      }
      initial_(e, pd.data(), y0.data());
      for (std::size_t s = 0; s < n; ++s) {
        y[s] = y0[s].v;
        for (std::size_t i = first; i < last; ++i) directions.initial[i * n + s] = y0[s].d[i - first];
      }
    }
    return directions;
  }

  // Experiment e's start y and its directions along each estimated parameter (for
  // `slopes`), pre-equilibrated where it is; false with `failure` set.
  bool start_directions(std::size_t e, const std::vector<double>& theta, Slopes slopes, std::vector<double>& y,
                        SensitivityDirections& d, std::string& failure) const {
    if (slopes == Slopes::none) {
      d = {};
      return start_state(e, theta, y, failure);
    }
    d = directions(e, theta, slopes == Slopes::scaled, y);
    if (!preequilibrated(e)) return true;
    std::vector<double> steady;
    SensitivityDirections along;
    if (!settled(e, theta, slopes, steady, along, failure)) {
      failure = "experiment " + std::to_string(e) + ": " + failure;
      return false;
    }
    start_from(e, steady.data(), y.data());
    const std::size_t n = y.size();
    for (std::size_t i = 0; i < d.count; ++i)
      for (std::size_t s = 0; s < n; ++s)
        if (preequilibration[e]->kept[s]) d.initial[i * n + s] = along.initial[i * n + s];
    return true;
  }

  // The steady state experiment e's run settles to (its measurements at time inf, after
  // its events) and its directions, as start_directions gives them.
  bool steady_end(std::size_t e, const std::vector<double>& theta, Slopes slopes, std::vector<double>& y,
                  SensitivityDirections& d, std::string& failure) const {
    if (!start_directions(e, theta, slopes, y, d, failure)) return false;
    const std::vector<double> p = parameters(e, theta);
    if (settle(model_, method_, this->options_of(e), y, p.data(), d, failure)) return true;
    failure = "experiment " + std::to_string(e) + ": steady state: " + failure;
    return false;
  }

  // f(y, p) of Duals and its slopes (into `slopes`, one an estimated parameter) along the
  // directions d: the state's, s (q x n), and the parameters', d.parameters.
  template <class F>
  double with_slopes(const SensitivityDirections& d, const double* y, const double* s, const std::vector<double>& p,
                     double* slopes, const F& f) const {
    using D = Dual<double, kDerivativeLanes>;
    const std::size_t q = estimated_.size(), n = state_size(model_), np = p.size();
    double value = 0.0;
    for (std::size_t first = 0; first < std::max<std::size_t>(q, 1); first += kDerivativeLanes) {
      const std::size_t last = std::min(q, first + kDerivativeLanes);
      std::vector<D> yd(y, y + n), pd(p.begin(), p.end());
      for (std::size_t i = first; i < last; ++i) {
        for (std::size_t k = 0; k < n; ++k) yd[k].d[i - first] = s[i * n + k];
        for (std::size_t j = 0; j < np; ++j) pd[j].d[i - first] = d.parameters[i * np + j];
      }
      const D h = f(yd.data(), pd.data());
      value = h.v;
      for (std::size_t i = first; i < last; ++i) slopes[i] = h.d[i - first];
    }
    return value;
  }

  // dJ/d(each estimated parameter's value) from dJ/dp of experiment e's parameters:
  // through its aliases, and through its formulas where it has them.
  std::vector<double> by_estimated(std::size_t e, const std::vector<double>& theta, std::vector<double> dJ_dp) const {
    std::vector<double> out(estimated_.size(), 0.0);
    if (derive_slopes) {  // sum_j dJ/dp_j dp_j/dtheta_i
      std::vector<double> y0;
      const SensitivityDirections along_p = directions(e, theta, false, y0);
      const std::size_t np = dJ_dp.size();
      for (std::size_t i = 0; i < estimated_.size(); ++i)
        for (std::size_t j = 0; j < np; ++j) out[i] += dJ_dp[j] * along_p.parameters[i * np + j];
      return out;
    }
    const auto& pairs = aliases(e);
    for (auto pair = pairs.rbegin(); pair != pairs.rend(); ++pair) dJ_dp[pair->second] += dJ_dp[pair->first];
    for (std::size_t i = 0; i < estimated_.size(); ++i) out[i] = dJ_dp[estimated_[i].index];
    return out;
  }

  const std::vector<std::pair<std::size_t, std::size_t>>& aliases(std::size_t e) const {
    static const std::vector<std::pair<std::size_t, std::size_t>> none;
    return e < parameter_aliases.size() ? parameter_aliases[e] : none;
  }

  const M& model_;
  Method method_;
  IntegrateOptions integrate_;
  InitialState initial_;
  std::vector<std::vector<double>> parameters_;
  std::vector<EstimatedParameter> estimated_;
};

}  // namespace backsweep
