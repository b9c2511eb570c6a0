#pragma once
// [ensemble], read by gradient (io/config/ensemble_config.hpp says what it means).
#include <optional>

#include "io/config/toml_reader.hpp"
#include "io/config/ensemble_config.hpp"

namespace backsweep::detail {

// The [ensemble] section, if there is one. Errors name file, line and key (or the CSV
// file's line and column).
std::optional<EnsembleConfig> read_ensemble(const TomlSection& root, const SimulateSpec& config);

}  // namespace backsweep::detail
