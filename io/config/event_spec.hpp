#pragma once
// An event as [[events]] gives it (docs/config.md): its name, the times it happens at,
// and the states it sets, with the formulas' places for errors. Built into the engine's
// TimeEvents by the assembly (io/assembly/simulate_config.cpp).
#include <string>
#include <utility>
#include <vector>

#include "io/config/formula.hpp"

namespace backsweep {

struct EventSpec {
  std::string name;
  std::vector<double> times;                         // ascending, after time.start
  std::vector<std::pair<std::string, Formula>> set;  // a state, its value after the event
};

}  // namespace backsweep
