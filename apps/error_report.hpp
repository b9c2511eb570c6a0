#pragma once
// How a command says it failed: "error: ..." on stderr, and the message kept in the run's
// own report (CommandIO::error) so that with --json main also prints {"error": {...}} on
// stdout, where a script reads the results, and the Python module raises it.
#include <iostream>
#include <optional>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "io/config/config_error.hpp"
#include "platform/printable.hpp"

namespace backsweep::apps {

struct ErrorReport {
  std::string message;
  std::optional<SourcePosition> where;  // a config error's file, line and column
  std::string key;                      // and its key
  nlohmann::json run = nlohmann::json::object();  // a failed run's step, time and state, where known
};

// What a message may echo of a user's text: a 2 MB value is cut, not printed whole.
inline constexpr std::size_t kMaxMessageBytes = 2000;

template <class... Parts>
void report_error(ErrorReport& report, const Parts&... parts) {
  std::ostringstream text;
  (text << ... << parts);
  report = {printable(text.str(), kMaxMessageBytes), std::nullopt, "", nlohmann::json::object()};
  std::cerr << "error: " << report.message << '\n';
}

inline void report_error(ErrorReport& report, const ConfigError& error) {
  report_error(report, error.what());
  report.where = error.where();
  report.where->file = printable(error.where().file, kMaxMessageBytes);
  report.key = printable(error.key(), kMaxMessageBytes);
}

// {"error": {"message", "exit_code"[, "file", "line", "column", "key"][, "phase", "step", "time",
// "state"]}}
inline nlohmann::json error_json(const ErrorReport& report, int exit_code) {
  nlohmann::json error = {{"message", report.message}, {"exit_code", exit_code}};
  if (report.where) {
    error["file"] = report.where->file;
    if (report.where->line > 0) {
      error["line"] = report.where->line;
      error["column"] = report.where->column;
    }
    if (!report.key.empty()) error["key"] = report.key;
  }
  error.update(report.run);
  return {{"error", error}};
}

}  // namespace backsweep::apps
