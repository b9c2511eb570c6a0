#pragma once
// Every command reads its config the same way: a ConfigError is printed as
// "error: file:line:col: key '...': ..." and the command exits with kExitBadInput.
#include <optional>
#include <string>
#include <type_traits>

#include "apps/error_report.hpp"
#include "io/config/config_error.hpp"

namespace backsweep::apps {

template <class Load>
auto load_config(Load&& load, const std::string& path)
    -> std::optional<std::invoke_result_t<Load, const std::string&>> {
  try {
    return load(path);
  } catch (const ConfigError& error) {
    report_error(error);
    return std::nullopt;
  }
}

}  // namespace backsweep::apps
