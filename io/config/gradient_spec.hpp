#pragma once
// What `gradient` reads: the simulate sections plus [objective], [gradient] and
// [checkpointing], [monitor], [ensemble] (docs/config.md). Objective terms are formulas of
// t, the states, the parameters and the constants, checked here so that their errors
// point into the file; io/assembly/gradient_config.hpp parses them for the engine.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "adjoint/gradient_mode.hpp"
#include "adjoint/gradient_problem.hpp"
#include "adjoint/shadowing_options.hpp"
#include "io/config/checkpointing_config.hpp"
#include "io/config/ensemble_config.hpp"
#include "io/config/formula.hpp"
#include "io/config/simulate_spec.hpp"

namespace backsweep {

struct ConfigFile;  // io/config/config_file.hpp

// gradient.mode = "shadowing": [shadowing], and whether shadowing.unstable was left to the
// Lyapunov spectrum.
struct ShadowingSpec {
  ShadowingOptions options;
  bool unstable_from_spectrum = true;
  std::string sweep = "auto";  // tangent (NILSS) | adjoint (its transpose) | auto
};

// What a gradient config says beyond its model and its objective's formulas.
struct GradientSettings {
  std::vector<std::size_t> parameters;        // indices reported; default all
  bool initial = true;
  GradientMode mode = GradientMode::adjoint;  // [gradient] mode, "auto" resolved
  CheckpointingConfig checkpointing;
  MonitorOptions monitor;                     // [monitor] thresholds
  std::optional<EnsembleConfig> ensemble;     // [ensemble]: a gradient a member
  std::optional<ShadowingSpec> shadowing;     // gradient.mode = "shadowing"
};

struct ObservationSpec {
  double time;
  Formula formula;
};

struct GradientSpec : GradientSettings {
  SimulateSpec simulate;
  std::optional<Formula> terminal, integral;
  std::vector<ObservationSpec> observations;  // sorted by time
};

// ConfigError on any problem.
GradientSpec gradient_spec(const ConfigFile& file);

}  // namespace backsweep
