#pragma once
// An event as [[events]] gives it (docs/config.md): its name, the times it happens at,
// and the states it sets, with the formulas' places for errors. Built into the engine's
// TimeEvents by the assembly (io/assembly/simulate_config.cpp).
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "io/config/formula.hpp"

namespace backsweep {

struct EventSpec {
  std::string name;
  std::vector<double> times;                         // ascending, after time.start
  std::vector<std::pair<std::string, Formula>> set;  // a state, its value after the event
  // Or a moving time: `at` as an expression of the parameters, or a condition `when`
  // crossing 0 in `direction` (+1 up, -1 down, 0 either).
  std::optional<Formula> at = {}, when = {};
  int direction = 0;
  bool terminal = false;
};

}  // namespace backsweep
