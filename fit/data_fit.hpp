#pragma once
// The negative log-likelihood of measurements under Gaussian noise (or the noise model a
// Noise policy gives each measurement, as PEtab's), as a function of the estimated
// parameters in their optimisation scale (lin, log or log10), with its exact
// gradient (discrete adjoint or forward tangent of the solve, one solve per experiment)
// and the Fisher information from forward sensitivities.
//
//   J(theta) = sum_k 1/2 ((h_k(y(t_k), p) - v_k) / sigma_k)^2 + log(sqrt(2 pi) sigma_k)
//
// With estimated noise, sigma_o of each observable is profiled out: sigma_o^2 is the mean
// squared residual of its measurements, J = sum_o n_o/2 (log(2 pi sigma_o^2) + 1), and by
// the envelope theorem its gradient is that of the weighted misfit at fixed sigma_o.
#include <cmath>
#include <cstddef>
#include <exception>
#include <functional>
#include <numbers>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <Eigen/Dense>

#include "adjoint/discrete_adjoint.hpp"
#include "adjoint/gradient_mode.hpp"
#include "adjoint/forward_tangent.hpp"
#include "fit/experiment_results.hpp"
#include "fit/fit_experiments.hpp"
#include "fit/measurement.hpp"
#include "fit/noise_model.hpp"
#include "solvers/method.hpp"
#include "platform/ranks.hpp"
#include "solvers/solve.hpp"

namespace backsweep {

// Observables: h(o, t, y, p) for observable o, generic in the scalar type; the
// experiments' parameters and initial states (which may depend on the parameters: dJ/dp
// then includes that path) as FitExperiments takes them.
template <Model M, class Observables, class InitialState, class Noise = GaussianNoise>
class DataFit : public FitExperiments<M, InitialState> {
  using Base = FitExperiments<M, InitialState>;
  using Base::model_, Base::method_, Base::initial_, Base::parameters_, Base::estimated_;
  using Base::preequilibrated, Base::settled, Base::start_from, Base::directions;
  using Base::start_directions, Base::steady_end, Base::with_slopes, Base::by_estimated;
  using typename Base::Slopes;

 public:
  using Base::parameters, Base::preequilibration, Base::start_state;

  DataFit(const M& model, const Method& method, const IntegrateOptions& integrate,
          Observables observables, std::size_t observable_count, InitialState initial,
          std::vector<std::vector<double>> parameters, std::vector<Measurement> measurements,
          std::vector<EstimatedParameter> estimated, bool estimate_sigma, GradientMode mode,
          CheckpointOptions checkpointing, Noise noise = {})
      : Base(model, method, integrate, initial, std::move(parameters), std::move(estimated)),
        observables_(observables), observable_count_(observable_count), measurements_(std::move(measurements)),
        estimate_sigma_(estimate_sigma), mode_(mode), checkpointing_(checkpointing),
        noise_(std::move(noise)), sigma_(measurements_.size()), rows_(parameters_.size()),
        timed_rows_(parameters_.size()), steady_rows_(parameters_.size()), count_(observable_count, 0) {
    for (std::size_t k = 0; k < measurements_.size(); ++k) {
      sigma_[k] = measurements_[k].sigma;
      const std::size_t e = measurements_[k].experiment;
      rows_[e].push_back(k);
      (std::isfinite(measurements_[k].time) ? timed_rows_ : steady_rows_)[e].push_back(k);
      ++count_[measurements_[k].observable];
    }
  }

  std::size_t size() const { return estimated_.size(); }

  // J(theta) and dJ/dtheta; NaN with `failure` set when a solve fails.
  double evaluate(const std::vector<double>& theta, std::vector<double>& gradient,
                  std::string& failure) {
    gradient.assign(theta.size(), 0.0);
    double constant = 0.0;
    if (estimate_sigma_) {
      if (!profile_sigma(theta, failure)) return NAN;
      for (std::size_t o = 0; o < observable_count_; ++o)
        if (count_[o])
          constant += 0.5 * double(count_[o]) *
                      (std::log(2.0 * std::numbers::pi * sigma_hat_[o] * sigma_hat_[o]));
    } else {
      for (std::size_t k = 0; k < measurements_.size(); ++k) constant += noise_.constant(measurements_[k], sigma_[k]);
    }
    // The experiments in rounds: each rank (and each of its threads) solves one of a round,
    // and every rank adds the round up in experiment order. Memory holds one round's
    // gradients, and the sum is the one-process sum for any number of ranks and threads.
    const bool spread = spread_experiments && ranks::count() > 1 && !adjoint_observer;
    const bool threaded = experiment_loop && !adjoint_observer;
    const std::size_t ranks_sharing = spread ? std::size_t(ranks::count()) : 1;
    const std::size_t round = ranks_sharing * (threaded ? std::max<std::size_t>(experiments_at_once, 1) : 1);
    std::vector<std::size_t> order;  // the experiments with measurements
    for (std::size_t e = 0; e < parameters_.size(); ++e)
      if (!rows_[e].empty()) order.push_back(e);
    double value = constant;
    monitors_.assign(parameters_.size(), std::nullopt);
    for (std::size_t first = 0; first < order.size(); first += round) {
      std::vector<ExperimentResult> results(std::min(round, order.size() - first));
      std::vector<std::size_t> here;  // this rank's places in the round
      for (std::size_t j = 0; j < results.size(); ++j)
        if (j % ranks_sharing == std::size_t(ranks::rank()) || !spread) here.push_back(j);
      const auto solve = [&](std::size_t i) {
        results[here[i]] = caught([&] { return experiment_result(order[first + here[i]], theta); });
      };
      if (threaded)
        experiment_loop(here.size(), solve);
      else
        for (std::size_t i = 0; i < here.size(); ++i) solve(i);
      if (spread) share_results(results, here);
      for (std::size_t j = 0; j < results.size(); ++j) {
        ExperimentResult& result = results[j];
        result.rethrow();
        if (result.failure) {
          last_failure_ = std::move(result.failure);
          failure = describe_failure(*last_failure_);
          if (result.refused) refused_ = std::move(result.refused);
          if (!result.invalid_options.empty()) invalid_options_ = std::move(result.invalid_options);
          return NAN;
        }
        value += result.value;
        monitors_[order[first + j]] = std::move(result.monitor);
        for (std::size_t i = 0; i < estimated_.size(); ++i)
          gradient[i] += result.dJ_dp[i] * estimated_[i].slope(theta[i]);
      }
    }
    return value;
  }

  // With an mpirun's ranks, evaluate() spreads the experiments over them (every rank must
  // then call it alike); off where ranks run evaluations of their own (a multi-start's).
  bool spread_experiments = true;
  // When set, runs this rank's experiments: loop(count, work) calls work(j) for each
  // j < count, in any order or at once (backend omp: a thread each). Each experiment's
  // result is that of a run alone, and they are added in order, so the sum is the same.
  std::function<void(std::size_t, const std::function<void(std::size_t)>&)> experiment_loop;
  std::size_t experiments_at_once = 1;  // how many experiment_loop runs at once (its threads)

  // F = sum_k (1/sigma_k^2) grad h_k grad h_kᵀ in scaled space, from the forward
  // sensitivities of the states along each estimated parameter; also the predictions h_k.
  bool fisher(const std::vector<double>& theta, Eigen::MatrixXd& information,
              std::vector<double>& predictions, std::string& failure) {
    const std::size_t q = estimated_.size();
    if (estimate_sigma_ && !profile_sigma(theta, failure)) return false;
    information = Eigen::MatrixXd::Zero(Eigen::Index(q), Eigen::Index(q));
    predictions.assign(measurements_.size(), NAN);
    // Row k: its prediction, then its slopes along the q estimated parameters.
    std::vector<double> rows(measurements_.size() * (q + 1));
    if (!each_experiment(rows, q + 1, failure,
                         [&](std::size_t e) { return experiment_slopes(e, theta, rows.data(), q + 1, failure); }))
      return false;
    for (std::size_t k = 0; k < measurements_.size(); ++k) {
      predictions[k] = rows[k * (q + 1)];
      const Eigen::Map<const Eigen::VectorXd> g(rows.data() + k * (q + 1) + 1, Eigen::Index(q));
      information += g * g.transpose() / (sigma_[k] * sigma_[k]);
    }
    return true;
  }

  // The noise sigma each measurement is weighted with (data, or profiled at the last theta).
  const std::vector<double>& sigmas() const { return sigma_; }
  // Set when a gradient's checkpointing option was refused before its run (a budget that
  // holds no slot, a store_all beyond the machine's memory).
  const std::optional<OptionRefusal>& refused() const { return refused_; }
  const std::vector<double>& profiled_sigma() const { return sigma_hat_; }
  // Set when a gradient was refused before its run (bad options, such as a store_all
  // that cannot fit in memory): the reason.
  const std::string& invalid_options() const { return invalid_options_; }
  // How evaluate() tells a failed solve (a config's fit names the experiment and states).
  std::function<std::string(const FitSolveFailure&)> describe_failure = [](const FitSolveFailure& f) {
    return "experiment " + std::to_string(f.experiment) + ": " + f.message;
  };
  // The latest solve of evaluate() that failed.
  const std::optional<FitSolveFailure>& last_failure() const { return last_failure_; }
  // The growth monitor's report of each experiment's gradient at the last evaluate()
  // (its verdict and figures; the history is not kept).
  const std::vector<std::optional<GrowthReport>>& monitors() const { return monitors_; }

  // The predictions h_k at theta, by forward solves.
  bool predict(const std::vector<double>& theta, std::vector<double>& predictions, std::string& failure) const {
    std::vector<double> rows;
    if (!predict_rows(theta, rows, failure)) return false;
    predictions.resize(measurements_.size());
    for (std::size_t k = 0; k < measurements_.size(); ++k) predictions[k] = rows[3 * k];
    return true;
  }

  // Each measurement's prediction h_k, its term of J (its constant included) and its
  // residual r_k (chi2 = sum r_k^2) at theta: three values a measurement, by forward solves.
  bool predict_rows(const std::vector<double>& theta, std::vector<double>& values, std::string& failure) const {
    values.assign(3 * measurements_.size(), NAN);
    return each_experiment(values, 3, failure, [&](std::size_t e) {
      const std::vector<double> p = parameters(e, theta);
      const auto write = [&](std::size_t row, double t, const double* state) {
        const Measurement& m = measurements_[row];
        const double h = observables_(m.observable, t, state, p.data());
        values[3 * row] = h;
        values[3 * row + 1] = noise_(m, h, t, state, p.data(), sigma_[row]) + noise_.constant(m, sigma_[row]);
        values[3 * row + 2] = noise_.residual(m, h, t, state, p.data(), sigma_[row]);
      };
      std::vector<double> y;
      if (!start_state(e, theta, y, failure)) return false;
      const std::vector<std::size_t>& rows = timed_rows_[e];
      if (!rows.empty()) {
        IntegrateOptions options = this->options_of(e);
        options.output_times = times_of(rows);
        std::size_t next = 0;
        const IntegrateResult solved =
            solve_forward(model_, method_, y.data(), p.data(), options, [&](double t, const double* state) {
              for (; next < rows.size() && measurements_[rows[next]].time == t; ++next) write(rows[next], t, state);
            });
        if (!solved.ok()) failure = "experiment " + std::to_string(e) + ": " + solved.message;
        if (!solved.ok()) return false;
      }
      if (steady_rows_[e].empty()) return true;
      SensitivityDirections none;
      if (!steady_end(e, theta, Slopes::none, y, none, failure)) return false;
      for (std::size_t row : steady_rows_[e]) write(row, INFINITY, y.data());
      return true;
    });
  }

  // When set, evaluate() hands it each experiment's adjoint state on the way back:
  // (experiment, t, lambda), the last time first.
  std::function<void(std::size_t, double, const double*)> adjoint_observer;

 private:
  struct Misfit {
    const DataFit* fit;
    const std::vector<std::size_t>* rows;  // this experiment's measurements, in time order
    template <class T>
    T operator()(std::size_t k, const T* y, const T* p) const {
      const std::size_t row = (*rows)[k];
      const Measurement& m = fit->measurements_[row];
      const T t(m.time);
      return fit->noise_(m, fit->observables_(m.observable, t, y, p), t, y, p, fit->sigma_[row]);
    }
  };
  struct Initial {
    const DataFit* fit;
    std::size_t experiment;
    const std::vector<double>* steady;  // the pre-equilibrated start, or null
    template <class T>
    void operator()(const T* p, T* y0) const {
      fit->initial_(experiment, p, y0);
      if (steady) fit->start_from(experiment, steady->data(), y0);  // its slopes: added by experiment_result
    }
  };
  using MisfitObjective = Objective<NoTerm, NoTerm, Misfit, Initial>;

  template <class Solve>
  bool each_experiment(std::vector<double>& values, std::size_t width, std::string& failure, Solve&& solve) const {
    return solve_each_experiment(rows_, spread_experiments && ranks::count() > 1, values, width, failure, solve);
  }

  // Experiment e's misfit and its gradient at the estimated parameters (or its failure):
  // its measurements at given times by a gradient's solve, those at its steady state by
  // the forward sensitivities of settling there.
  ExperimentResult experiment_result(std::size_t e, const std::vector<double>& theta) {
    ExperimentResult result;
    result.dJ_dp.assign(estimated_.size(), 0.0);
    if (!timed_rows_[e].empty()) add_timed_misfit(e, theta, result);
    if (result.failure || steady_rows_[e].empty()) return result;
    std::vector<double> y;
    SensitivityDirections d;
    if (std::string why; !steady_end(e, theta, Slopes::linear, y, d, why)) {
      result.failure = FitSolveFailure{e, why, std::nullopt};
      return result;
    }
    const std::vector<double> p = parameters(e, theta);
    std::vector<double> slopes(estimated_.size());
    for (std::size_t row : steady_rows_[e]) {
      const Measurement& m = measurements_[row];
      result.value += with_slopes(d, y.data(), d.initial.data(), p, slopes.data(), [&](const auto* yd, const auto* pd) {
        using D = std::remove_cvref_t<decltype(*yd)>;
        const D t(INFINITY);
        return noise_(m, observables_(m.observable, t, yd, pd), t, yd, pd, sigma_[row]);
      });
      for (std::size_t i = 0; i < slopes.size(); ++i) result.dJ_dp[i] += slopes[i];
    }
    return result;
  }

  // Adds the misfit of experiment e's measurements at given times and its gradient to
  // `result` (or sets its failure).
  void add_timed_misfit(std::size_t e, const std::vector<double>& theta, ExperimentResult& result) {
    const std::vector<std::size_t>& rows = timed_rows_[e];
    std::vector<double> steady;
    SensitivityDirections along;  // the steady state's slopes
    if (std::string why; preequilibrated(e) && !settled(e, theta, Slopes::linear, steady, along, why)) {
      result.failure = FitSolveFailure{e, why, std::nullopt};
      return;
    }
    MisfitObjective objective{{}, {}, Misfit{this, &rows}, {}, Initial{this, e, preequilibrated(e) ? &steady : nullptr}};
    for (std::size_t k : rows) objective.observation_times.push_back(measurements_[k].time);
    const std::vector<double> p = parameters(e, theta);
    // y0 comes from the objective's initial term; these zeros only size dJ/dy0.
    GradientProblem<M, MisfitObjective> problem{
        model_, method_, std::vector<double>(state_size(model_)), p, objective, this->options_of(e)};
    if (adjoint_observer)
      problem.adjoint_observer = [&, e](double t, const double* lambda) { adjoint_observer(e, t, lambda); };
    const GradientResult<double> solved =
        mode_ == GradientMode::adjoint ? backsweep::gradient<double>(problem, problem.y0, problem.p, checkpointing_)
                                       : tangent_gradient(problem);
    if (!solved.ok()) {
      result.failure = FitSolveFailure{e, solved.message, solved.diagnostics.nonfinite};
      result.refused = solved.diagnostics.refused;
      if (solved.status == IntegrateStatus::invalid_options) result.invalid_options = solved.message;
      return;
    }
    result.value = solved.value;
    if ((result.monitor = solved.diagnostics.monitor)) result.monitor->forget_history();
    result.dJ_dp = by_estimated(e, theta, solved.dJ_dp);
    if (preequilibrated(e))  // dJ/dy0 along the kept states' slopes
      for (std::size_t i = 0; i < along.count; ++i)
        for (std::size_t s = 0; s < steady.size(); ++s)
          if (preequilibration[e]->kept[s]) result.dJ_dp[i] += solved.dJ_dy0[s] * along.initial[i * steady.size() + s];
  }

  // Experiment e's predictions and their slopes along each estimated parameter (in scaled
  // space), the initial state's dependence on the parameters included.
  // Row k of `rows` (`width` = q + 1 values) gets the prediction, then the slopes.
  bool experiment_slopes(std::size_t e, const std::vector<double>& theta, double* rows_out, std::size_t width,
                         std::string& failure) const {
    const std::vector<double> p = parameters(e, theta);
    const auto write = [&](std::size_t row, double t, const double* state, const double* s,
                           const SensitivityDirections& d) {
      const Measurement& m = measurements_[row];
      rows_out[row * width] = with_slopes(d, state, s, p, rows_out + row * width + 1, [&](const auto* yd, const auto* pd) {
        return observables_(m.observable, std::remove_cvref_t<decltype(*yd)>(t), yd, pd);
      });
    };
    std::vector<double> y;
    SensitivityDirections directions;
    if (!start_directions(e, theta, Slopes::scaled, y, directions, failure)) return false;
    if (const std::vector<std::size_t>& rows = timed_rows_[e]; !rows.empty()) {
      std::size_t next = 0;
      IntegrateOptions options = this->options_of(e);
      options.output_times = times_of(rows);
      const IntegrateResult solved = solve_sensitivities(
          model_, method_, y.data(), p.data(), directions, options, [&](double t, const double* state, const double* s) {
            for (; next < rows.size() && measurements_[rows[next]].time == t; ++next)
              write(rows[next], t, state, s, directions);
          });
      if (!solved.ok()) failure = "experiment " + std::to_string(e) + ": " + solved.message;
      if (!solved.ok()) return false;
    }
    if (steady_rows_[e].empty()) return true;
    if (!steady_end(e, theta, Slopes::scaled, y, directions, failure)) return false;
    for (std::size_t row : steady_rows_[e]) write(row, INFINITY, y.data(), directions.initial.data(), directions);
    return true;
  }

  std::vector<double> times_of(const std::vector<std::size_t>& rows) const {
    std::vector<double> times;
    for (std::size_t k : rows)
      if (times.empty() || times.back() != measurements_[k].time) times.push_back(measurements_[k].time);
    return times;
  }

  // sigma_o^2 = mean squared residual of observable o at theta.
  bool profile_sigma(const std::vector<double>& theta, std::string& failure) {
    std::vector<double> predictions;
    if (!predict(theta, predictions, failure)) return false;
    std::vector<double> squares(observable_count_, 0.0);
    for (std::size_t k = 0; k < measurements_.size(); ++k) {
      const double r = predictions[k] - measurements_[k].value;
      squares[measurements_[k].observable] += r * r;
    }
    sigma_hat_.assign(observable_count_, NAN);
    for (std::size_t o = 0; o < observable_count_; ++o)
      if (count_[o] > 0) sigma_hat_[o] = std::sqrt(std::max(squares[o] / double(count_[o]), 1e-300));
    for (std::size_t k = 0; k < measurements_.size(); ++k)
      sigma_[k] = sigma_hat_[measurements_[k].observable];
    return true;
  }

  Observables observables_;
  std::size_t observable_count_;
  std::vector<Measurement> measurements_;
  bool estimate_sigma_;
  GradientMode mode_;
  CheckpointOptions checkpointing_;
  Noise noise_;
  std::optional<OptionRefusal> refused_;
  std::string invalid_options_;
  std::optional<FitSolveFailure> last_failure_;
  std::vector<std::optional<GrowthReport>> monitors_;
  std::vector<double> sigma_, sigma_hat_;
  std::vector<std::vector<std::size_t>> rows_;  // per experiment, its measurements
  // Per experiment, its measurements at given times and at its steady state (time inf).
  std::vector<std::vector<std::size_t>> timed_rows_, steady_rows_;
  std::vector<std::size_t> count_;              // per observable, its measurements
};

}  // namespace backsweep
