#pragma once
// A PEtab problem (format 1 or 2: a YAML file naming an SBML model and TSV tables of
// parameters, conditions, observables, measurements and, in format 2, experiments) as its
// files give it: rows of names, numbers and formula texts, each with its place. Nothing is
// simulated or parsed as math here. Every problem is a ConfigError naming the file, the
// row (line) and the column: a missing column, an unknown id, a number that is not one, a
// non-positive bound on a log scale.
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "io/config/config_error.hpp"

namespace backsweep {

struct PetabParameter {
  std::string id;
  std::string scale = "lin";  // lin, log or log10: the optimiser's scale
  double lower = -std::numeric_limits<double>::infinity(), upper = std::numeric_limits<double>::infinity();
  double nominal = std::numeric_limits<double>::quiet_NaN();
  bool estimate = false;
  // Objective prior (format 1: objectivePrior*, format 2: prior*) and format 1's
  // initialization prior: a distribution's name and its parameters ("" where none).
  std::string prior, prior_parameters, initialization_prior, initialization_parameters;
  SourcePosition at;
};

// What a condition sets: a target (a parameter, species or compartment id) to a value
// (a number, a parameter id, a formula in format 2; "" or NaN in format 1: unchanged).
struct PetabConditionChange {
  std::string target, value;
  SourcePosition at;
};

struct PetabCondition {
  std::string id;
  std::vector<PetabConditionChange> changes;
  SourcePosition at;
};

struct PetabObservable {
  std::string id, formula, noise_formula;
  std::string transformation = "lin";  // lin, log, log10 (format 2: from its noise distribution)
  std::string distribution = "normal";  // normal or laplace
  std::vector<std::string> observable_placeholders, noise_placeholders;  // format 2's, else implied
  SourcePosition at;
};

struct PetabMeasurement {
  std::string observable;
  std::string condition, preequilibration;  // format 1 (preequilibration "" for none)
  std::string experiment;                   // format 2 ("" for none)
  double time = 0.0, value = 0.0;          // time may be inf: at the steady state
  std::vector<std::string> observable_parameters, noise_parameters;  // numbers or ids
  SourcePosition at;
};

// Format 2: an experiment's periods, each starting at `time` (-inf: pre-equilibration)
// with the conditions applied then.
struct PetabPeriod {
  double time = 0.0;
  std::vector<std::string> conditions;
  SourcePosition at;
};
struct PetabExperiment {
  std::string id;
  std::vector<PetabPeriod> periods;  // by time
};

struct PetabProblem {
  std::string file;  // the YAML file
  int format = 1;
  std::string sbml_file;
  std::vector<PetabParameter> parameters;
  std::vector<PetabCondition> conditions;
  std::vector<PetabObservable> observables;
  std::vector<PetabMeasurement> measurements;
  std::vector<PetabExperiment> experiments;

  const PetabParameter* find_parameter(const std::string& id) const;
  const PetabCondition* find_condition(const std::string& id) const;
  const PetabObservable* find_observable(const std::string& id) const;
};

// Reads the YAML file and the tables it names (relative to its folder).
PetabProblem read_petab_problem(const std::string& yaml_path);

// Whether `path` names a PEtab problem (a .yaml or .yml file) rather than a config.
bool is_petab_file(const std::string& path);

}  // namespace backsweep
