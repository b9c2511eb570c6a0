#include "io/config/petab_held_parameters.hpp"

#include <algorithm>
#include <cmath>

#include "io/config/detail/petab_text.hpp"
#include "models/expression.hpp"

namespace backsweep {

std::string HeldParameters::read(const std::string& text) const {
  if (states.empty()) return text;
  return detail::rewritten(text, [this](const std::string& id) -> std::optional<std::string> {
    if (const auto it = states.find(id); it != states.end()) return it->second;
    return std::nullopt;
  });
}

HeldParameters hold_changed_parameters(const PetabProblem& problem, SimulateSpec& sim,
                                       std::vector<std::pair<std::size_t, Formula>>& relations,
                                       const std::function<std::optional<std::string>(const std::string&)>& symbol,
                                       std::set<std::string>& taken) {
  HeldParameters held;
  const auto hold = [&](const std::string& parameter, const PetabConditionChange& change) {
    const auto& names = sim.parameter_names;
    if (held.states.count(parameter) || std::find(names.begin(), names.end(), parameter) == names.end()) return;
    std::string name = parameter + "_held";
    while (is_reserved_expression_name(name) || taken.count(name)) name += "_";
    taken.insert(name);
    held.states[parameter] = name;
    sim.state_names.push_back(name);
    sim.equations.push_back(Formula{"0", change.at, change.target});
    sim.initial_formulas.push_back(Formula{parameter, change.at, change.target});
  };
  for (const PetabExperiment& e : problem.experiments) {
    const std::size_t first = !e.periods.empty() && e.periods[0].time == -INFINITY ? 1 : 0;
    for (std::size_t k = first + 1; k < e.periods.size(); ++k)
      for (const std::string& c : e.periods[k].conditions)
        if (const PetabCondition* condition = problem.find_condition(c))
          for (const PetabConditionChange& change : condition->changes)
            if (const auto name = symbol(change.target)) hold(*name, change);
  }
  if (held.states.empty()) return held;
  for (Formula& f : sim.equations) f.text = held.read(f.text);
  for (EventSpec& event : sim.events) {
    if (event.when) event.when->text = held.read(event.when->text);
    for (auto& [state, value] : event.set) value.text = held.read(value.text);
  }
  for (auto& [state, relation] : relations) relation.text = held.read(relation.text);
  return held;
}

}  // namespace backsweep
