#pragma once
// A parameter that a later period of a PEtab experiment changes becomes a state that holds
// it: right-hand side 0, starting from the parameter's value, set by that period's event.
// The model's right-hand sides, events, switches and observables read the state; the
// conditions at an experiment's start still set the parameter, which initial values read.
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "io/config/formula.hpp"
#include "io/config/petab_problem.hpp"
#include "io/config/simulate_spec.hpp"

namespace backsweep {

struct HeldParameters {
  std::map<std::string, std::string> states;  // a parameter's name -> its state's name
  // `text` (in the model's names) reading the states in place of the parameters.
  std::string read(const std::string& text) const;
};

// Adds the states to `sim` and rewrites its equations and events, and `relations` (states'
// formulas read at a pre-equilibrated start), to read them. `symbol`: an id's name in the
// model; `taken`: the names in use, which the new ones join.
HeldParameters hold_changed_parameters(const PetabProblem& problem, SimulateSpec& sim,
                                       std::vector<std::pair<std::size_t, Formula>>& relations,
                                       const std::function<std::optional<std::string>(const std::string&)>& symbol,
                                       std::set<std::string>& taken);

}  // namespace backsweep
