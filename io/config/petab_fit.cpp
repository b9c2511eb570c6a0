#include "io/config/petab_fit.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstddef>
#include <functional>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>

#include "fit/settle_decades.hpp"
#include "io/config/detail/petab_text.hpp"
#include "io/config/events_section.hpp"
#include "io/config/expression_reader.hpp"
#include "io/config/petab_held_parameters.hpp"
#include "io/config/petab_prior.hpp"
#include "io/config/sbml_model.hpp"
#include "models/expression.hpp"

namespace backsweep {

namespace {

class PetabTranslator {
 public:
  explicit PetabTranslator(const PetabProblem& problem) : problem_(problem) {}

  PetabFit translate() {
    read_model();
    read_parameters();
    held_ = hold_changed_parameters(problem_, sim(), out_.fit.restarted_states,
                                    [this](const std::string& id) { return symbol(id); }, taken_);
    read_measurements();
    return std::move(out_);
  }

 private:
  SimulateSpec& sim() { return out_.fit.simulate; }

  void read_model() {
    SbmlModel sbml = read_sbml_model(problem_.sbml_file);
    if (sbml.state_names.empty()) {  // observables of the parameters and time: a state that stays 0 carries the solve
      std::string name = "constant_";
      while (sbml.symbols.count(name) || std::find(sbml.parameter_names.begin(), sbml.parameter_names.end(), name) !=
                                            sbml.parameter_names.end())
        name += "_";
      Formula zero;
      zero.text = "0";
      zero.at.file = problem_.sbml_file;
      zero.key = "model";
      sbml.state_names.push_back(name);
      sbml.equations.push_back(zero);
      sbml.initial.push_back(zero);
    }
    SimulateSpec& s = sim();
    s.file = problem_.file;
    s.model = "expression";
    s.kind = ModelKind::equations;
    s.sbml_file = problem_.sbml_file;
    s.state_names = std::move(sbml.state_names);
    s.parameter_names = std::move(sbml.parameter_names);
    s.parameters = std::move(sbml.parameters);
    s.equations = std::move(sbml.equations);
    s.initial_formulas.assign(sbml.initial.begin(), sbml.initial.end());
    s.events = std::move(sbml.events);
    s.method_name = "sdirk4";  // L-stable and adaptive: stiff or not
    s.integrate.rtol = 1e-8;   // the peers' defaults for PEtab problems
    s.integrate.atol = 1e-12;
    s.output_dir = "out/" + std::filesystem::path(problem_.file).stem().string();
    symbols_ = std::move(sbml.symbols);
    for (const auto& [id, text] : symbols_) taken_.insert(text);
    for (const auto& names : {s.state_names, s.parameter_names}) taken_.insert(names.begin(), names.end());
    out_.fit.restarted_states = std::move(sbml.switches);  // a switch starts from its relation
  }

  std::optional<std::size_t> parameter_index(const std::string& name) const {
    const auto& names = out_.fit.simulate.parameter_names;
    const auto it = std::find(names.begin(), names.end(), name);
    if (it == names.end()) return std::nullopt;
    return std::size_t(it - names.begin());
  }
  std::optional<std::size_t> state_index(const std::string& name) const {
    const auto& names = out_.fit.simulate.state_names;
    const auto it = std::find(names.begin(), names.end(), name);
    if (it == names.end()) return std::nullopt;
    return std::size_t(it - names.begin());
  }
  // What an id reads as in our expressions: a model symbol's text, a PEtab parameter's name.
  std::optional<std::string> symbol(const std::string& id) const {
    if (id == "time") return std::string("t");
    const auto it = symbols_.find(id);
    if (it != symbols_.end()) return it->second;
    return std::nullopt;
  }

  // Each parameter of the table: a model parameter takes its nominal value; the others
  // (observable, noise and condition parameters) are added to the model's.
  void read_parameters() {
    for (const PetabParameter& p : problem_.parameters) {
      std::optional<std::size_t> index;
      if (const auto known = symbol(p.id)) {
        index = parameter_index(*known);
        if (!index)
          throw ConfigError(p.at, "parameterId", "'" + p.id + "' is a species or a changing quantity of the model, "
                                                  "not a parameter");
      } else {
        std::string name = p.id;
        while (name == "t" || is_reserved_expression_name(name) || taken_.count(name)) name += "_";
        taken_.insert(name);
        symbols_[p.id] = name;
        index = sim().parameter_names.size();
        sim().parameter_names.push_back(name);
        sim().parameters.push_back(NAN);
      }
      if (std::isfinite(p.nominal)) sim().parameters[*index] = p.nominal;
      else if (!p.estimate || std::isnan(sim().parameters[*index]))
        throw ConfigError(p.at, "nominalValue", "'" + p.id + "' needs a nominal value");
      if (!p.estimate) continue;
      out_.priors.push_back(petab_prior(p, problem_.format));
      FitParameter fit;
      fit.name = p.id;  // outputs name it as the problem does
      fit.index = *index;
      fit.nominal = sim().parameters[*index];
      fit.lower = p.lower;
      fit.upper = p.upper;
      fit.scale = p.scale == "log10" ? ParameterScale::log10 : p.scale == "log" ? ParameterScale::log : ParameterScale::lin;
      if (!(fit.lower < fit.upper)) throw ConfigError(p.at, "upperBound", "must be greater than lowerBound");
      out_.fit.parameters.push_back(fit);
    }
  }

  // The experiment of a measurement row: its conditions applied to the model's values,
  // after the steady state of its pre-equilibration where it has one.
  std::size_t experiment_of(const PetabMeasurement& m) {
    if (problem_.format == 1) {
      if (m.preequilibration.empty()) return experiment(m.condition, {m.condition}, {}, m, std::nullopt);
      const std::size_t from = experiment(m.preequilibration, {m.preequilibration}, {}, m, std::nullopt);
      return experiment(m.preequilibration + ":" + m.condition, {m.condition}, {}, m, from);
    }
    if (m.experiment.empty()) return experiment("", {}, {}, m, std::nullopt);
    const auto e = std::find_if(problem_.experiments.begin(), problem_.experiments.end(),
                                [&](const PetabExperiment& x) { return x.id == m.experiment; });
    if (e == problem_.experiments.end())
      throw ConfigError(m.at, "experimentId", "unknown experiment '" + m.experiment + "'");
    // A pre-equilibration (a first period at -inf), the period the simulation starts with,
    // and later ones: their changes are events at their start times.
    const std::vector<PetabPeriod>& periods = e->periods;
    const std::size_t first = !periods.empty() && periods[0].time == -INFINITY ? 1 : 0;
    if (periods.empty()) throw ConfigError(m.at, "experimentId", "experiment '" + m.experiment + "' has no periods");
    // A pre-equilibration alone: the run goes on from the steady state, at the start time.
    if (periods.size() == first) {
      const std::size_t from = experiment(m.experiment + " pre-equilibration", periods[0].conditions, {}, m, std::nullopt);
      return experiment(m.experiment, {}, periods[0].conditions, m, from);
    }
    const PetabPeriod& main = periods[first];
    if (!std::isfinite(main.time)) throw ConfigError(main.at, "time", "a period must start at a finite time or -inf");
    if (start_ && *start_ != main.time)
      throw ConfigError(main.at, "time", "experiments that start at different times are not taken yet");
    start_ = main.time;
    const std::vector<PetabPeriod> later(periods.begin() + std::ptrdiff_t(first) + 1, periods.end());
    if (!first) return experiment(m.experiment, main.conditions, {}, m, std::nullopt, later);
    // Format 2's changes last until changed again: the pre-equilibration's parameters hold
    // after it unless the period sets them.
    const std::size_t from = experiment(m.experiment + " pre-equilibration", periods[0].conditions, {}, m, std::nullopt);
    return experiment(m.experiment, main.conditions, periods[0].conditions, m, from, later);
  }

  // The changes of a later period as an event at its start: states (held parameters'
  // included) set to their values, formulas of the state just before.
  EventSpec period_event(const std::string& experiment, const PetabPeriod& period) {
    EventSpec event;
    std::ostringstream name;
    name << experiment << " at t = " << period.time;
    event.name = name.str();
    event.times = {period.time};
    for (const std::string& c : period.conditions) {
      const PetabCondition* condition = problem_.find_condition(c);
      if (!condition) throw ConfigError(period.at, "conditionId", "unknown condition '" + c + "'");
      for (const PetabConditionChange& change : condition->changes) {
        double number = NAN;
        if (change.value.empty() || (detail::is_number(change.value, number) && std::isnan(number))) continue;
        auto name = symbol(change.target);
        if (!name) throw ConfigError(change.at, change.target, "is not an id of the model or the parameter table");
        if (const auto it = held_.states.find(*name); it != held_.states.end()) name = it->second;
        if (!state_index(*name))
          throw ConfigError(change.at, change.target, "experiment '" + experiment + "': a period after the first that "
                                                          "changes a constant is not taken yet");
        const std::string value = detail::rewritten(change.value, [this](const std::string& id) { return symbol(id); });
        event.set.emplace_back(*name, Formula{held_.read(value), change.at, change.target});
      }
    }
    return event;
  }

  // Experiment `id` (made on first use): the parameter changes of `carried`, then the
  // changes of `conditions`, applied to the model's values; `from`: its pre-equilibration.
  std::size_t experiment(const std::string& id, const std::vector<std::string>& conditions,
                         const std::vector<std::string>& carried, const PetabMeasurement& m,
                         std::optional<std::size_t> from, const std::vector<PetabPeriod>& later = {}) {
    const auto known = experiment_index_.find(id);
    if (known != experiment_index_.end()) return known->second;
    const std::size_t n = sim().state_names.size();
    FitExperimentConfig experiment{id.empty() ? "default" : id, std::vector<double>(n, NAN), sim().parameters,
                                   std::vector<bool>(n, false), std::vector<std::optional<Formula>>(n), {}, {}, from, {}};
    for (const PetabPeriod& period : later) experiment.events.push_back(period_event(experiment.id, period));
    const auto changes = [&](const std::string& c) -> const std::vector<PetabConditionChange>& {
      const PetabCondition* condition = problem_.find_condition(c);
      if (!condition)
        throw ConfigError(m.at, problem_.format == 2 ? "experimentId" : "simulationConditionId",
                          "unknown condition '" + c + "'");
      return condition->changes;
    };
    for (const std::string& c : carried)
      for (const PetabConditionChange& change : changes(c))
        if (const auto name = symbol(change.target); name && parameter_index(*name)) apply(change, experiment);
    for (const std::string& c : conditions)
      for (const PetabConditionChange& change : changes(c)) apply(change, experiment);
    for (const auto& [parameter, state] : held_.states)  // from the parameter here, not from the steady state
      if (const std::size_t i = *state_index(state); from) experiment.initial_formulas[i] = sim().initial_formulas[i];
    experiment_index_[id] = out_.fit.experiments.size();
    out_.fit.experiments.push_back(std::move(experiment));
    return experiment_index_[id];
  }

  void apply(const PetabConditionChange& change, FitExperimentConfig& experiment) {
    double number = NAN;
    const bool numeric = detail::is_number(change.value, number);
    if (change.value.empty() || (numeric && std::isnan(number))) return;  // unchanged
    const auto name = symbol(change.target);
    if (!name) throw ConfigError(change.at, change.target, "is not an id of the model or the parameter table");
    const std::string text = detail::rewritten(change.value, [this](const std::string& id) { return symbol(id); });
    if (const auto p = parameter_index(*name)) {
      if (numeric) {
        experiment.parameters[*p] = number;
      } else if (const auto source = parameter_index(text)) {
        experiment.aliases.emplace_back(*p, *source);
      } else {
        const Formula formula{text, change.at, change.target};
        parse_formula(formula, ExpressionScope(sim().parameter_names));  // of the parameters alone
        experiment.parameter_formulas.emplace_back(*p, formula);
      }
    } else if (const auto s = state_index(*name)) {
      if (numeric) {
        experiment.initial_state[*s] = number;
        experiment.initial_overridden[*s] = true;
      } else {
        experiment.initial_formulas[*s] = Formula{text, change.at, change.target};
      }
    } else {
      throw ConfigError(change.at, change.target, "is an assignment rule's target: a condition cannot set it");
    }
  }

  // The row's override of placeholder k: a number, or a parameter's name.
  std::string override_text(const PetabMeasurement& m, const std::vector<std::string>& values, std::size_t k,
                            const char* column) const {
    if (k >= values.size() || values[k].empty())
      throw ConfigError(m.at, column, "gives no value for placeholder " + std::to_string(k + 1) + " of observable '" +
                                          m.observable + "'");
    double number = 0.0;
    if (detail::is_number(values[k], number)) return "(" + values[k] + ")";
    if (const auto name = symbol(values[k])) return *name;
    throw ConfigError(m.at, column, "'" + values[k] + "' is neither a number nor an id of the parameter table");
  }

  // A formula of observable o with the row's placeholders in place.
  std::string placed(const PetabObservable& o, const PetabMeasurement& m, const std::string& text,
                     const std::vector<std::string>& placeholders, const std::vector<std::string>& values,
                     const char* prefix, const char* column) const {
    return detail::rewritten(text, [&](const std::string& id) -> std::optional<std::string> {
      if (const auto k = placeholder_index(o, id, placeholders, prefix)) return override_text(m, values, *k, column);
      return symbol(id);
    });
  }

  // Which placeholder `id` is: its place in format 2's list, or format 1's implied
  // prefix<k+1>_<observable id>; nothing when it is none.
  static std::optional<std::size_t> placeholder_index(const PetabObservable& o, const std::string& id,
                                                      const std::vector<std::string>& placeholders, const char* prefix) {
    if (!placeholders.empty()) {
      const auto it = std::find(placeholders.begin(), placeholders.end(), id);
      if (it == placeholders.end()) return std::nullopt;
      return std::size_t(it - placeholders.begin());
    }
    const std::size_t n = std::string_view(prefix).size();
    if (id.rfind(prefix, 0) != 0 || id.size() <= n + o.id.size() + 1 || !std::isdigit(static_cast<unsigned char>(id[n])) ||
        id.compare(id.size() - o.id.size() - 1, std::string::npos, "_" + o.id) != 0)
      return std::nullopt;
    return std::size_t(std::stoul(id.substr(n))) - 1;
  }

  std::size_t observable_of(const PetabMeasurement& m) {
    const PetabObservable* o = problem_.find_observable(m.observable);
    if (!o) throw ConfigError(m.at, "observableId", "unknown observable '" + m.observable + "'");
    const std::string formula = held_.read(placed(*o, m, o->formula, o->observable_placeholders,
                                                  m.observable_parameters, "observableParameter", "observableParameters"));
    // The noise formula may read the observable itself.
    const std::string noise = held_.read(detail::rewritten(
        placed(*o, m, o->noise_formula, o->noise_placeholders, m.noise_parameters, "noiseParameter", "noiseParameters"),
        [&](const std::string& id) -> std::optional<std::string> {
          if (id == o->id) return "(" + formula + ")";
          return std::nullopt;
        }));
    const std::string key = o->id + '\n' + formula + '\n' + noise;
    const auto known = observable_index_.find(key);
    if (known != observable_index_.end()) return known->second;
    ObservableSpec spec;
    spec.name = o->id;
    spec.formula = Formula{formula, o->at, "observableFormula"};
    spec.noise = Formula{noise, o->at, "noiseFormula"};
    spec.noise_model.transformation = o->transformation == "log10" ? Transformation::log10
                                      : o->transformation == "log" ? Transformation::log
                                                                   : Transformation::lin;
    spec.noise_model.distribution = o->distribution == "laplace" ? NoiseDistribution::laplace : NoiseDistribution::normal;
    const ExpressionScope scope = expression_scope(sim());
    parse_formula(spec.formula, scope);  // an unknown id is refused at the observable's row
    parse_formula(*spec.noise, scope);
    observable_index_[key] = out_.fit.observables.size();
    out_.fit.observables.push_back(std::move(spec));
    return observable_index_[key];
  }

  void read_measurements() {
    std::vector<std::pair<Measurement, std::size_t>> rows;
    double t1 = -INFINITY;
    std::set<std::size_t> steady_measured;  // experiments measured at their steady state
    for (std::size_t r = 0; r < problem_.measurements.size(); ++r) {
      const PetabMeasurement& m = problem_.measurements[r];
      if (!(m.time > -INFINITY)) throw ConfigError(m.at, "time", "must be a number or inf (a steady-state measurement)");
      Measurement row;
      row.experiment = experiment_of(m);
      row.observable = observable_of(m);
      row.time = m.time;
      row.value = m.value;
      row.sigma = NAN;  // the noise formula gives it
      if (out_.fit.observables[row.observable].noise_model.transformation != Transformation::lin && !(m.value > 0.0))
        throw ConfigError(m.at, "measurement", "must be > 0 for observable '" + m.observable + "' on a " +
                                                   std::string(to_string(out_.fit.observables[row.observable]
                                                                             .noise_model.transformation)) + " scale");
      if (std::isfinite(m.time)) t1 = std::max(t1, m.time);
      else steady_measured.insert(row.experiment);
      rows.emplace_back(row, r);
    }
    if (rows.empty()) throw ConfigError({problem_.file}, "measurement_files", "the problem has no measurements");
    std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
      return a.first.experiment != b.first.experiment ? a.first.experiment < b.first.experiment
                                                      : a.first.time < b.first.time;
    });
    for (const auto& [row, r] : rows) {
      out_.fit.measurements.push_back(row);
      out_.rows.push_back(r);
    }
    IntegrateOptions& o = sim().integrate;
    o.t0 = start_.value_or(0.0);
    o.t1 = t1 > o.t0 ? t1 : o.t0 + 1.0;
    // A period after the last measurement changes nothing seen, unless a steady state is.
    for (std::size_t e = 0; e < out_.fit.experiments.size(); ++e)
      if (!steady_measured.count(e))
        std::erase_if(out_.fit.experiments[e].events, [&](const EventSpec& event) { return event.times.front() > o.t1; });
    sim().initial_state.resize(sim().state_names.size());
    evaluate_initial_state();
    // The model's events up to where a steady state is looked for (fit/steady_state.hpp).
    const double t1_of_run = o.t1;
    if (!steady_measured.empty()) o.t1 = o.t0 + std::pow(10.0, kSettleDecades);
    sim().events = detail::model_events(sim());
    o.t1 = t1_of_run;
  }

  // The model's initial values at the parameters' nominal values (each experiment's
  // numbers; formulas are evaluated at the run's parameters).
  void evaluate_initial_state() {
    const ExpressionScope scope = initial_value_scope(sim());
    for (std::size_t i = 0; i < sim().state_names.size(); ++i) {
      const double value = parse_formula(*sim().initial_formulas[i], scope).evaluate(sim().parameters.data());
      sim().initial_state[i] = value;
      for (FitExperimentConfig& e : out_.fit.experiments)
        if (!e.initial_overridden[i]) e.initial_state[i] = value;
    }
  }

  const PetabProblem& problem_;
  PetabFit out_;
  std::map<std::string, std::string> symbols_;  // PEtab id -> its text in our expressions
  HeldParameters held_;  // the parameters later periods change, as states
  std::set<std::string> taken_;
  std::map<std::string, std::size_t> experiment_index_, observable_index_;
  std::optional<double> start_;  // format 2: the experiments' start
};

}  // namespace

PetabFit petab_fit_spec(const PetabProblem& problem) { return PetabTranslator(problem).translate(); }

}  // namespace backsweep
