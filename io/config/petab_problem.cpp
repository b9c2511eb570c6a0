#include "io/config/petab_problem.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include <yaml-cpp/yaml.h>

#include "io/config/detail/petab_table.hpp"

namespace backsweep {

namespace {

namespace fs = std::filesystem;
using detail::PetabTable;

// The problem file: its keys, errors at their lines.
class ProblemFile {
 public:
  explicit ProblemFile(std::string path) : path_(std::move(path)) {
    try {
      root_ = YAML::LoadFile(path_);
    } catch (const YAML::BadFile&) {
      throw ConfigError({path_}, "", "cannot read the PEtab problem file");
    } catch (const YAML::Exception& e) {
      throw ConfigError({path_, std::size_t(e.mark.line + 1), std::size_t(e.mark.column + 1)}, "",
                        "not YAML: " + e.msg);
    }
    if (!root_.IsMap()) throw ConfigError({path_, 1, 1}, "", "a PEtab problem file is a YAML mapping");
  }

  const YAML::Node& root() const { return root_; }
  [[noreturn]] void fail(const YAML::Node& node, const std::string& key, const std::string& problem) const {
    const YAML::Mark mark = node.Mark();
    throw ConfigError({path_, mark.line >= 0 ? std::size_t(mark.line + 1) : 0, mark.column >= 0 ? std::size_t(mark.column + 1) : 0},
                      key, problem);
  }
  // `key` of `node`: a file name or a list of them, each relative to this file's folder.
  std::vector<std::string> files(const YAML::Node& node, const std::string& key) const {
    const YAML::Node list = node[key];
    std::vector<std::string> names;
    if (!list || list.IsNull()) return names;
    if (list.IsScalar()) names.push_back(list.as<std::string>());
    else if (list.IsSequence())
      for (const YAML::Node& item : list) {
        if (!item.IsScalar()) fail(item, key, "must list file names");
        names.push_back(item.as<std::string>());
      }
    else fail(list, key, "must be a file name or a list of them");
    for (std::string& name : names) {
      fs::path path(name);
      if (path.is_relative()) path = fs::path(path_).parent_path() / path;
      if (!fs::is_regular_file(path)) fail(list, key, "no such file: " + path.string());
      name = path.string();
    }
    return names;
  }

 private:
  std::string path_;
  YAML::Node root_;
};

bool log_scale(const std::string& scale) { return scale == "log" || scale == "log10"; }

// Row r's id in `column`: not empty, and not one `listed` already holds.
template <class Listed>
std::string new_id(const PetabTable& t, std::size_t r, const char* column, const Listed& listed) {
  const std::string& id = t.text(r, column);
  if (id.empty()) t.fail(r, column, "is empty");
  if (listed(id)) t.fail(r, column, "'" + id + "' is listed twice");
  return id;
}

void read_parameters(const PetabTable& t, int format, PetabProblem& problem) {
  t.require({"parameterId", "estimate"});
  if (format == 1) t.require({"parameterScale", "lowerBound", "upperBound", "nominalValue"});
  for (std::size_t r = 0; r < t.rows(); ++r) {
    PetabParameter p;
    p.id = new_id(t, r, "parameterId", [&](const std::string& id) { return problem.find_parameter(id); });
    p.at = t.at(r, "parameterId");
    p.estimate = t.flag(r, "estimate");
    if (t.has("parameterScale") && !t.text(r, "parameterScale").empty()) p.scale = t.text(r, "parameterScale");
    if (p.scale != "lin" && !log_scale(p.scale)) t.fail(r, "parameterScale", "'" + p.scale + "' is not lin, log or log10");
    if (!t.text(r, "lowerBound").empty()) p.lower = t.number(r, "lowerBound", true);
    if (!t.text(r, "upperBound").empty()) p.upper = t.number(r, "upperBound", true);
    if (!t.text(r, "nominalValue").empty()) p.nominal = t.number(r, "nominalValue");
    else if (!p.estimate) t.fail(r, "nominalValue", "is required for a parameter that is not estimated");
    if (p.estimate && !(p.lower <= p.upper)) t.fail(r, "upperBound", "is below lowerBound");
    if (p.estimate && log_scale(p.scale) && !(p.lower > 0.0))
      t.fail(r, "lowerBound", "must be > 0 on a " + p.scale + " scale (it is " + t.text(r, "lowerBound") + ")");
    if (log_scale(p.scale) && !std::isnan(p.nominal) && !(p.nominal > 0.0))
      t.fail(r, "nominalValue", "must be > 0 on a " + p.scale + " scale (it is " + t.text(r, "nominalValue") + ")");
    const char* prior = format == 1 ? "objectivePriorType" : "priorDistribution";
    const char* prior_parameters = format == 1 ? "objectivePriorParameters" : "priorParameters";
    p.prior = t.text(r, prior);
    p.prior_parameters = t.text(r, prior_parameters);
    p.initialization_prior = t.text(r, "initializationPriorType");
    p.initialization_parameters = t.text(r, "initializationPriorParameters");
    problem.parameters.push_back(std::move(p));
  }
}

bool unchanged(const std::string& value) { return value.empty() || value == "NaN" || value == "nan"; }

void read_conditions(const PetabTable& t, int format, PetabProblem& problem) {
  t.require({"conditionId"});
  if (format == 2) t.require({"targetId", "targetValue"});
  for (std::size_t r = 0; r < t.rows(); ++r) {
    const std::string& id = t.text(r, "conditionId");
    if (id.empty()) t.fail(r, "conditionId", "is empty");
    auto it = std::find_if(problem.conditions.begin(), problem.conditions.end(), [&](const auto& c) { return c.id == id; });
    if (it != problem.conditions.end() && format == 1) t.fail(r, "conditionId", "'" + id + "' is listed twice");
    if (it == problem.conditions.end()) {
      problem.conditions.push_back({id, {}, t.at(r, "conditionId")});
      it = problem.conditions.end() - 1;
    }
    if (format == 2) {  // long: one target a row
      if (t.text(r, "targetId").empty()) t.fail(r, "targetId", "is empty");
      if (t.text(r, "targetValue").empty()) t.fail(r, "targetValue", "is empty");
      it->changes.push_back({t.text(r, "targetId"), t.text(r, "targetValue"), t.at(r, "targetValue")});
      continue;
    }
    for (const std::string& column : t.columns())  // wide: a column a target
      if (column != "conditionId" && column != "conditionName" && !unchanged(t.text(r, column)))
        it->changes.push_back({column, t.text(r, column), t.at(r, column)});
  }
}

void read_observables(const PetabTable& t, int format, PetabProblem& problem) {
  t.require({"observableId", "observableFormula", "noiseFormula"});
  for (std::size_t r = 0; r < t.rows(); ++r) {
    PetabObservable o;
    o.id = new_id(t, r, "observableId", [&](const std::string& id) { return problem.find_observable(id); });
    o.at = t.at(r, "observableId");
    o.formula = t.text(r, "observableFormula");
    o.noise_formula = t.text(r, "noiseFormula");
    if (o.formula.empty()) t.fail(r, "observableFormula", "is empty");
    if (o.noise_formula.empty()) t.fail(r, "noiseFormula", "is empty");
    const std::string& distribution = t.text(r, "noiseDistribution");
    if (format == 1) {
      if (!t.text(r, "observableTransformation").empty()) o.transformation = t.text(r, "observableTransformation");
      if (o.transformation != "lin" && !log_scale(o.transformation))
        t.fail(r, "observableTransformation", "'" + o.transformation + "' is not lin, log or log10");
      if (!distribution.empty()) o.distribution = distribution;
    } else {  // log-normal and log-laplace: the distribution of log(h)
      o.transformation = distribution.starts_with("log-") ? "log" : "lin";
      if (!distribution.empty()) o.distribution = distribution.starts_with("log-") ? distribution.substr(4) : distribution;
      o.observable_placeholders = t.list(r, "observablePlaceholders");
      o.noise_placeholders = t.list(r, "noisePlaceholders");
    }
    if (o.distribution != "normal" && o.distribution != "laplace")
      t.fail(r, "noiseDistribution", "'" + distribution + "' is not normal or laplace" +
                                         (format == 2 ? std::string(" (or log-normal, log-laplace)") : ""));
    problem.observables.push_back(std::move(o));
  }
}

void read_experiments(const PetabTable& t, PetabProblem& problem) {
  t.require({"experimentId", "time", "conditionId"});
  for (std::size_t r = 0; r < t.rows(); ++r) {
    const std::string& id = t.text(r, "experimentId");
    if (id.empty()) t.fail(r, "experimentId", "is empty");
    const double time = t.number(r, "time", true);
    if (time == INFINITY) t.fail(r, "time", "a period cannot start at inf");
    const std::string& condition = t.text(r, "conditionId");
    if (!condition.empty() && !problem.find_condition(condition))
      t.fail(r, "conditionId", "'" + condition + "' is not a condition of the condition table");
    auto it = std::find_if(problem.experiments.begin(), problem.experiments.end(), [&](const auto& e) { return e.id == id; });
    if (it == problem.experiments.end()) {
      problem.experiments.push_back({id, {}});
      it = problem.experiments.end() - 1;
    }
    auto period = std::find_if(it->periods.begin(), it->periods.end(), [&](const auto& p) { return p.time == time; });
    if (period == it->periods.end()) {
      it->periods.push_back({time, {}, t.at(r, "time")});
      period = it->periods.end() - 1;
    }
    if (!condition.empty()) period->conditions.push_back(condition);
  }
  for (PetabExperiment& e : problem.experiments)
    std::stable_sort(e.periods.begin(), e.periods.end(), [](const auto& a, const auto& b) { return a.time < b.time; });
}

void read_measurements(const PetabTable& t, int format, PetabProblem& problem) {
  t.require({"observableId", "time", "measurement"});
  if (format == 1) t.require({"simulationConditionId"});
  for (std::size_t r = 0; r < t.rows(); ++r) {
    PetabMeasurement m;
    m.at = t.at(r, "observableId");
    m.observable = t.text(r, "observableId");
    if (!problem.find_observable(m.observable))
      t.fail(r, "observableId", "'" + m.observable + "' is not an observable of the observable table");
    m.time = t.number(r, "time", true);
    if (m.time == -INFINITY) t.fail(r, "time", "a measurement cannot be at -inf");
    m.value = t.number(r, "measurement");
    m.observable_parameters = t.list(r, "observableParameters");
    m.noise_parameters = t.list(r, "noiseParameters");
    if (format == 1) {
      m.condition = t.text(r, "simulationConditionId");
      m.preequilibration = t.text(r, "preequilibrationConditionId");
      for (const char* column : {"simulationConditionId", "preequilibrationConditionId"}) {
        const std::string& id = t.text(r, column);
        if (!id.empty() && !problem.find_condition(id)) t.fail(r, column, "'" + id + "' is not a condition of the condition table");
      }
      if (m.condition.empty()) t.fail(r, "simulationConditionId", "is empty");
    } else {
      m.experiment = t.text(r, "experimentId");
      const bool known = std::any_of(problem.experiments.begin(), problem.experiments.end(),
                                     [&](const auto& e) { return e.id == m.experiment; });
      if (!m.experiment.empty() && !known) t.fail(r, "experimentId", "'" + m.experiment + "' is not an experiment of the experiment table");
    }
    problem.measurements.push_back(std::move(m));
  }
}

}  // namespace

const PetabParameter* PetabProblem::find_parameter(const std::string& id) const {
  const auto it = std::find_if(parameters.begin(), parameters.end(), [&](const auto& p) { return p.id == id; });
  return it == parameters.end() ? nullptr : &*it;
}
const PetabCondition* PetabProblem::find_condition(const std::string& id) const {
  const auto it = std::find_if(conditions.begin(), conditions.end(), [&](const auto& c) { return c.id == id; });
  return it == conditions.end() ? nullptr : &*it;
}
const PetabObservable* PetabProblem::find_observable(const std::string& id) const {
  const auto it = std::find_if(observables.begin(), observables.end(), [&](const auto& o) { return o.id == id; });
  return it == observables.end() ? nullptr : &*it;
}

bool is_petab_file(const std::string& path) {
  const std::string extension = fs::path(path).extension().string();
  return extension == ".yaml" || extension == ".yml";
}

PetabProblem read_petab_problem(const std::string& yaml_path) {
  const ProblemFile file(yaml_path);
  const YAML::Node& root = file.root();
  PetabProblem problem;
  problem.file = yaml_path;
  const YAML::Node version = root["format_version"];
  if (!version || !version.IsScalar()) file.fail(root, "format_version", "is required (1 or 2.0.0)");
  const std::string v = version.as<std::string>();
  if (v == "1" || v == "1.0.0") problem.format = 1;
  else if (v.starts_with("2.")) problem.format = 2;
  else file.fail(version, "format_version", "'" + v + "' is not a PEtab format this reads (1 or 2.0.0)");

  // What the tables are in: format 1 under problems[0], format 2 at the top. (A Node is
  // a reference: reset() points it elsewhere, where = would overwrite what it refers to.)
  YAML::Node tables;
  tables.reset(root);
  std::vector<std::string> models, parameter_files;
  if (problem.format == 1) {
    const YAML::Node problems = root["problems"];
    if (!problems || !problems.IsSequence() || problems.size() != 1)
      file.fail(problems ? problems : root, "problems", "must list one problem (several in one file are not taken)");
    tables.reset(problems[0]);
    models = file.files(tables, "sbml_files");
    parameter_files = file.files(root, "parameter_file");
  } else {
    const YAML::Node model_files = root["model_files"];
    if (!model_files || !model_files.IsMap()) file.fail(root, "model_files", "is required: { id: { location, language } }");
    for (const auto& entry : model_files) {
      const YAML::Node language = entry.second["language"];
      if (!language || language.as<std::string>() != "sbml")
        file.fail(entry.second, "model_files." + entry.first.as<std::string>(), "is not an SBML model (language: sbml)");
      YAML::Node location;
      location["location"] = entry.second["location"];
      for (const std::string& model : file.files(location, "location")) models.push_back(model);
    }
    parameter_files = file.files(root, "parameter_files");
  }
  if (models.size() != 1) file.fail(tables, problem.format == 1 ? "sbml_files" : "model_files", "must name one SBML model");
  problem.sbml_file = models.front();
  if (parameter_files.empty()) file.fail(root, problem.format == 1 ? "parameter_file" : "parameter_files", "is required");
  for (const std::string& path : parameter_files) read_parameters(PetabTable(path, "the parameter table"), problem.format, problem);
  for (const std::string& path : file.files(tables, "condition_files"))
    read_conditions(PetabTable(path, "the condition table"), problem.format, problem);
  for (const std::string& path : file.files(tables, "observable_files"))
    read_observables(PetabTable(path, "the observable table"), problem.format, problem);
  if (problem.format == 2)
    for (const std::string& path : file.files(tables, "experiment_files")) read_experiments(PetabTable(path, "the experiment table"), problem);
  const std::vector<std::string> measurement_files = file.files(tables, "measurement_files");
  if (measurement_files.empty()) file.fail(tables, "measurement_files", "is required");
  for (const std::string& path : measurement_files)
    read_measurements(PetabTable(path, "the measurement table"), problem.format, problem);
  return problem;
}

}  // namespace backsweep
