#pragma once
// A fit config built for the engine: its simulate sections (simulate_config.hpp) and its
// observables' formulas parsed in the config's scope.
#include <string>
#include <vector>

#include "io/assembly/simulate_config.hpp"
#include "io/config/fit_spec.hpp"
#include "models/expression.hpp"

namespace backsweep {

struct FitObservable {
  std::string name;
  Expression formula;  // of t, the states, the parameters (expression_scope)
};

struct FitConfig : FitSettings {
  SimulateConfig simulate;
  std::vector<FitObservable> observables;
};

FitConfig assemble_fit(FitSpec spec);
FitConfig load_fit_config(const std::string& path);
// The same from a file already read (ConfigError on any problem).
FitConfig fit_config(const ConfigFile& file);

}  // namespace backsweep
