#pragma once
// ConfigError: a problem with a user's input file. Its message names the file, the line
// and column, and the key, as "file:line:column: key 'solver.rtol': must be > 0". The
// command line turns it into exit code 2.
#include <cstddef>
#include <sstream>
#include <stdexcept>
#include <string>

namespace backsweep {

struct SourcePosition {
  std::string file;
  std::size_t line = 0, column = 0;  // 1-based; 0 when unknown
};

class ConfigError : public std::runtime_error {
 public:
  ConfigError(SourcePosition where, std::string key, const std::string& problem)
      : std::runtime_error(format(where, key, problem)),
        where_(std::move(where)),
        key_(std::move(key)) {}

  const SourcePosition& where() const { return where_; }
  const std::string& key() const { return key_; }

 private:
  static std::string format(const SourcePosition& where, const std::string& key,
                            const std::string& problem) {
    std::ostringstream text;
    text << where.file;
    if (where.line > 0) text << ':' << where.line << ':' << where.column;
    text << ": ";
    if (!key.empty()) text << "key '" << key << "': ";
    text << problem;
    return text.str();
  }

  SourcePosition where_;
  std::string key_;
};

}  // namespace backsweep
