#pragma once
// [ensemble] (gradient): many members of one problem, each with its own values of some
// parameters and initial states, and one gradient a member. The values come from a CSV
// file (a header of names, then a row a member) or are drawn as seeded Latin-hypercube
// samples in given ranges. What a member does not vary keeps the config's value; an
// [initial] expression of the parameters is evaluated at the member's parameters.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "io/config/simulate_spec.hpp"

namespace backsweep {

struct VariedValue {
  std::string name;
  bool state = false;     // an initial state, else a parameter
  std::size_t index = 0;  // in the config's states or parameters
};

struct EnsembleConfig {
  std::vector<VariedValue> varied;
  std::vector<std::vector<double>> members;  // a row a member, in `varied` order
  std::string source;                        // the CSV path, or "latin_hypercube, seed N"
};

}  // namespace backsweep
