#pragma once
// Every command reads its config the same way: a ConfigError is printed as
// "error: file:line:col: key '...': ..." and the command exits with kExitBadInput, on
// every rank of an mpirun where one rank's fails.
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include "apps/error_report.hpp"
#include "io/config/config_error.hpp"
#include "platform/rank_exchange.hpp"

namespace backsweep::apps {

// `source`: the config file's path, or the file already read (io/config/config_file.hpp);
// a ConfigError goes to `report`.
template <class Load, class Source>
auto load_config(ErrorReport& report, Load&& load, Source&& source)
    -> std::optional<std::invoke_result_t<Load, Source&&>> {
  std::optional<std::invoke_result_t<Load, Source&&>> loaded;
  try {
    loaded.emplace(load(std::forward<Source>(source)));
  } catch (const ConfigError& error) {
    report_error(report, error);
    return std::nullopt;
  }
  // A config one rank of an mpirun could not read (its own data file) ends every rank here.
  ranks::check_others();
  return loaded;
}

}  // namespace backsweep::apps
