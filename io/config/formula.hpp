#pragma once
// An expression as a config gives it: its text, where it stands and its key, so that the
// assembly, which parses it into the engine's Expression, reports an error there.
#include <string>

#include "io/config/config_error.hpp"

namespace backsweep {

struct Formula {
  std::string text;
  SourcePosition at;  // the string's opening quote
  std::string key;    // "objective.terminal"
};

}  // namespace backsweep
