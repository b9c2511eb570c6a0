#pragma once
// An SBML model file (read with libSBML) as the equations a config would define
// (`[model] sbml = "model.xml"`): its states, parameters with their values, right-hand
// sides, initial values and events, as formulas whose places are the SBML elements' lines.
//
// States: the species, compartments and parameters that change (by reactions, rate rules
// or events), each in the units SBML's math reads it in (a species' concentration unless
// it has only substance units); the constant ones are parameters; assignment rules (and
// constants given by initial assignments) are written into every formula that reads them.
// A species' right-hand side is its reactions' rates times their stoichiometry, over its
// compartment's size when it is a concentration. A relation of time or the state in the
// right-hand sides (a piecewise's condition) is a switch: a state an event flips. What is
// not taken (delays, algebraic rules, fast reactions, events with delays, variable
// stoichiometry, required packages) is refused naming the element's id and what it is.
#include <cstddef>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "io/config/event_spec.hpp"
#include "io/config/formula.hpp"

namespace backsweep {

struct SbmlModel {
  std::vector<std::string> state_names, parameter_names;  // the names expressions use (an id
                                                          // that is a reserved name gets a '_')
  std::vector<double> parameters;                          // the file's values
  std::vector<Formula> equations;                          // per state
  std::vector<Formula> initial;                            // per state: of the parameters
  std::vector<EventSpec> events;
  // The states that stand for relations of time or the state (sbml_switches.hpp), with
  // their relations (of t, the states and the parameters): a run sets them at its start,
  // a pre-equilibrated one to the relation at its start's state.
  std::vector<std::pair<std::size_t, Formula>> switches;
  // Every SBML id as an expression reads it: its name, or an assignment rule's formula
  // (PEtab's formulas name the model's ids). An id whose formula is not taken is absent.
  std::map<std::string, std::string> symbols;
};

// Throws ConfigError at the file (and the element's line) on a file libSBML cannot read
// or what is not taken.
SbmlModel read_sbml_model(const std::string& path);

}  // namespace backsweep
