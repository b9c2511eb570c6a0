#pragma once
// Every command reads its config the same way: a ConfigError is printed as
// "error: file:line:col: key '...': ..." and the command exits with kExitBadInput.
#include <optional>
#include <string>
#include <type_traits>

#include "apps/error_report.hpp"
#include "io/config/config_error.hpp"

namespace backsweep::apps {

// `source`: the config file's path, or the file already read (io/config/config_file.hpp).
template <class Load, class Source>
auto load_config(Load&& load, const Source& source) -> std::optional<std::invoke_result_t<Load, const Source&>> {
  try {
    return load(source);
  } catch (const ConfigError& error) {
    report_error(error);
    return std::nullopt;
  }
}

}  // namespace backsweep::apps
