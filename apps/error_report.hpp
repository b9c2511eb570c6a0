#pragma once
// How a command says it failed: "error: ..." on stderr, and the message kept so that with
// --json main also prints {"error": {...}} on stdout, where a script reads the results.
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

inline ErrorReport& last_error() {
  static thread_local ErrorReport report;  // per thread: the Python module's calls may run on several
  return report;
}

template <class... Parts>
void report_error(const Parts&... parts) {
  std::ostringstream text;
  (text << ... << parts);
  last_error() = {printable(text.str(), kMaxMessageBytes), std::nullopt, "", nlohmann::json::object()};
  std::cerr << "error: " << last_error().message << '\n';
}

inline void report_error(const ConfigError& error) {
  report_error(error.what());
  last_error().where = error.where();
  last_error().where->file = printable(error.where().file, kMaxMessageBytes);
  last_error().key = printable(error.key(), kMaxMessageBytes);
}

// {"error": {"message", "exit_code"[, "file", "line", "column", "key"][, "phase", "step", "time",
// "state"]}}
inline nlohmann::json error_json(int exit_code) {
  const ErrorReport& report = last_error();
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
