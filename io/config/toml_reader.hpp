#pragma once
// TomlSection: typed, position-aware access to one table of a config file. Every read
// error, missing key and unknown key becomes a ConfigError naming file, line and key.
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <toml++/toml.h>

#include "io/config/config_error.hpp"
#include "io/config/config_file.hpp"

namespace backsweep::detail {

class TomlSection {
 public:
  // `dotted_name` is how keys in this table are named in messages ("solver").
  TomlSection(const toml::table& table, std::string file, std::string dotted_name);
  // The whole file, whose errors in an overridden key name the override.
  explicit TomlSection(const ConfigFile& file);

  const toml::table& table() const { return table_; }
  bool has(std::string_view key) const { return table_.contains(key); }

  // Rejects keys not in `allowed` (a typo must not be silently ignored).
  void reject_unknown_keys(std::initializer_list<std::string_view> allowed) const;

  double number(std::string_view key, double fallback) const;
  double required_number(std::string_view key) const;
  std::optional<double> optional_number(std::string_view key) const;
  std::size_t count(std::string_view key, std::size_t fallback) const;  // integer >= 0
  std::string string(std::string_view key, std::string_view fallback) const;
  std::vector<double> number_array(std::string_view key) const;
  // An array of strings; std::nullopt when absent.
  std::optional<std::vector<std::string>> string_array(std::string_view key) const;
  std::optional<TomlSection> subsection(std::string_view key) const;

  // The full key name ("solver.rtol") and position of `key` (of the table if absent).
  std::string key_name(std::string_view key) const;
  SourcePosition position(std::string_view key) const;
  [[noreturn]] void fail(std::string_view key, const std::string& problem) const;
  // Fails pointing at the name of `key` rather than at its value (a bad name).
  [[noreturn]] void fail_at_key(std::string_view key, const std::string& problem) const;
  // Fails at entry `index` (0-based) of the array `key`.
  [[noreturn]] void fail_entry(std::string_view key, std::size_t index,
                               const std::string& problem) const;

 private:
  // Where a dotted key was overridden: the option itself.
  std::optional<SourcePosition> override_of(const std::string& dotted_key) const;

  const toml::table& table_;
  std::string file_, name_;
  const std::vector<std::string>* overrides_ = nullptr;  // the file's
};

// Parses a TOML file; syntax errors, unreadable files and binary garbage all become a
// ConfigError with the position the parser reports.
toml::table parse_toml_file(const std::string& path);
// The same for a config's text, named `name` in errors.
toml::table parse_toml_text(const std::string& text, const std::string& name);

}  // namespace backsweep::detail
