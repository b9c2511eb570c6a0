#include "io/config/toml_reader.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "io/config/config_file.hpp"
#include "io/config/config_overrides.hpp"
#include "io/config/detail/joined.hpp"
#include "io/config/petab_problem.hpp"

namespace backsweep::detail {

namespace {

constexpr std::uintmax_t kMaxConfigBytes = 16u << 20;
constexpr std::size_t kMaxDottedParts = 64;

// toml++ parses a dotted key (a.b.c = 1, [a.b.c]) by recursion, a level a part, so tens
// of thousands of parts overflow the stack: refused before it parses. Counts the dots of
// each run of bare keys, quoted keys and dots on a line, outside strings and comments
// (a number's one dot, 1.5, is a run of one).
void refuse_deep_dotted_keys(std::string_view text, const std::string& path) {
  std::size_t line = 1, column = 1, dots = 0, run_line = 1, run_column = 1;
  const auto bare = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == ' ' || c == '\t';
  };
  for (std::size_t at = 0; at < text.size(); ++at, ++column) {
    const char c = text[at];
    if (c == '"' || c == '\'') {  // skip the string, a one-line or multi-line one
      const bool multi = text.substr(at, 3) == std::string(3, c);
      const std::string close = multi ? std::string(3, c) : std::string(1, c);
      std::size_t end = at + close.size();
      while (end < text.size() && text.compare(end, close.size(), close) != 0) {
        if (!multi && text[end] == '\n') break;
        if (text[end] == '\n') ++line, column = 0;
        end += c == '"' && text[end] == '\\' ? 2 : 1;
      }
      column += end + close.size() - 1 - at;
      at = end + close.size() - 1;
      continue;
    }
    if (c == '.') {
      if (dots++ == 0) run_line = line, run_column = column;
      if (dots >= kMaxDottedParts)
        throw ConfigError({path, run_line, run_column}, "",
                          "a dotted key of more than " + std::to_string(kMaxDottedParts) + " parts");
      continue;
    }
    if (bare(c)) continue;
    dots = 0;
    if (c == '#')
      while (at + 1 < text.size() && text[at + 1] != '\n') ++at;
    if (c == '\n') ++line, column = 0;
  }
}

constexpr std::string_view kOverride = "--set ";

SourcePosition position_of(const toml::source_region& region, const std::string& file) {
  return {file, region.begin.line, region.begin.column};
}

// KEY=VALUE into `document`: the tables on the dotted key's way are made where missing.
void apply_override(toml::table& document, const std::string& assignment) {
  const std::string option = std::string(kOverride) + assignment;
  const std::size_t equals = assignment.find('=');
  if (equals == std::string::npos || equals == 0)
    throw ConfigError({option, 0, 0}, "", "must be KEY=VALUE, such as solver.step=0.01");
  const std::string key = assignment.substr(0, equals), value = assignment.substr(equals + 1);
  std::vector<std::string> parts;
  for (std::size_t start = 0, dot; start <= key.size(); start = dot + 1) {
    dot = std::min(key.find('.', start), key.size());
    parts.push_back(key.substr(start, dot - start));
    if (parts.back().empty()) throw ConfigError({option, 0, 0}, key, "is not a dotted key such as solver.step");
  }
  toml::table* table = &document;
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    toml::node* node = table->get(parts[i]);
    if (!node) node = &table->insert(parts[i], toml::table{}).first->second;
    table = node->as_table();
    if (!table) throw ConfigError({option, 0, 0}, key, "'" + parts[i] + "' is not a table in the config");
  }
  // As TOML, but as text where the file has a string (unless quoted), or where the key is
  // new and the value is no TOML (--output-dir runs/2).
  const toml::node* existing = table->get(parts.back());
  const bool text = existing && existing->is_string() && !value.starts_with('"') && !value.starts_with('\'');
  if (!text) refuse_deep_dotted_keys(value, std::string(kOverride) + key);  // not the whole value: cut
  toml::table parsed;
  try {
    parsed = toml::parse("value = " + (text ? toml_string(value) : value), option);
  } catch (const toml::parse_error& error) {
    if (existing)
      throw ConfigError({option, 0, 0}, key, "is not a TOML value: " + std::string(error.description()));
    try {
      parsed = toml::parse("value = " + toml_string(value), option);
    } catch (const toml::parse_error& again) {  // a control character no string holds
      throw ConfigError({option, 0, 0}, key, "is not a TOML value: " + std::string(again.description()));
    }
  }
  parsed.get("value")->visit([&](const auto& node) { table->insert_or_assign(parts.back(), node); });
}

}  // namespace

TomlSection::TomlSection(const toml::table& table, std::string file, std::string dotted_name)
    : table_(table), file_(std::move(file)), name_(std::move(dotted_name)) {}

TomlSection::TomlSection(const ConfigFile& file) : TomlSection(file.document, file.path, "") {
  overrides_ = &file.overrides;
}

std::optional<SourcePosition> TomlSection::override_of(const std::string& dotted_key) const {
  if (!overrides_) return std::nullopt;
  for (auto assignment = overrides_->rbegin(); assignment != overrides_->rend(); ++assignment)  // the last holds
    if (assignment->starts_with(dotted_key) && assignment->size() > dotted_key.size() &&
        (*assignment)[dotted_key.size()] == '=')
      return SourcePosition{std::string(kOverride) + *assignment, 0, 0};
  return std::nullopt;
}

std::string TomlSection::key_name(std::string_view key) const {
  if (name_.empty()) return std::string(key);
  return name_ + "." + std::string(key);
}

SourcePosition TomlSection::position(std::string_view key) const {
  if (const auto overridden = override_of(key_name(key))) return *overridden;
  if (const toml::node* node = table_.get(key)) return position_of(node->source(), file_);
  return position_of(table_.source(), file_);
}

void TomlSection::fail(std::string_view key, const std::string& problem) const {
  throw ConfigError(position(key), key_name(key), problem);
}

void TomlSection::reject_unknown_keys(std::initializer_list<std::string_view> allowed) const {
  for (auto&& [key, node] : table_) {
    if (std::find(allowed.begin(), allowed.end(), key.str()) != allowed.end()) continue;
    const std::string name = key_name(key.str());
    throw ConfigError(override_of(name).value_or(position_of(key.source(), file_)), name,
                      "unknown key (known keys here: " + joined(allowed) + ")");
  }
}

std::optional<double> TomlSection::optional_number(std::string_view key) const {
  const toml::node* node = table_.get(key);
  if (!node) return std::nullopt;
  std::optional<double> value;
  if (node->is_floating_point()) value = node->as_floating_point()->get();
  else if (node->is_integer()) value = double(node->as_integer()->get());
  if (!value) fail(key, "must be a number");
  if (!std::isfinite(*value)) fail(key, "must be a finite number");
  return value;
}

double TomlSection::number(std::string_view key, double fallback) const {
  return optional_number(key).value_or(fallback);
}

double TomlSection::required_number(std::string_view key) const {
  if (!has(key)) fail(key, "is required");
  return *optional_number(key);
}

std::size_t TomlSection::count(std::string_view key, std::size_t fallback) const {
  const toml::node* node = table_.get(key);
  if (!node) return fallback;
  if (!node->is_integer() || node->as_integer()->get() < 0)
    fail(key, "must be a non-negative integer");
  return static_cast<std::size_t>(node->as_integer()->get());
}

std::string TomlSection::string(std::string_view key, std::string_view fallback) const {
  const toml::node* node = table_.get(key);
  if (!node) return std::string(fallback);
  if (!node->is_string()) fail(key, "must be a string");
  return node->as_string()->get();
}

std::vector<double> TomlSection::number_array(std::string_view key) const {
  const toml::node* node = table_.get(key);
  if (!node) return {};
  const toml::array* array = node->as_array();
  if (!array) fail(key, "must be an array of numbers");
  std::vector<double> values;
  for (const toml::node& item : *array) {
    std::optional<double> value;
    if (item.is_floating_point()) value = item.as_floating_point()->get();
    else if (item.is_integer()) value = double(item.as_integer()->get());
    if (!value || !std::isfinite(*value))
      throw ConfigError(position_of(item.source(), file_), key_name(key),
                        "entry " + std::to_string(values.size() + 1) +
                            " must be a finite number");
    values.push_back(*value);
  }
  return values;
}

std::optional<std::vector<std::string>> TomlSection::string_array(std::string_view key) const {
  const toml::node* node = table_.get(key);
  if (!node) return std::nullopt;
  const toml::array* array = node->as_array();
  if (!array) fail(key, "must be an array of strings");
  std::vector<std::string> values;
  for (const toml::node& item : *array) {
    if (!item.is_string()) fail_entry(key, values.size(), "must be a string");
    values.push_back(item.as_string()->get());
  }
  return values;
}

void TomlSection::fail_at_key(std::string_view key, const std::string& problem) const {
  const auto it = table_.find(key);
  if (it == table_.end()) fail(key, problem);
  throw ConfigError(override_of(key_name(key)).value_or(position_of(it->first.source(), file_)), key_name(key),
                    problem);
}

void TomlSection::fail_entry(std::string_view key, std::size_t index,
                             const std::string& problem) const {
  const toml::array* array = table_.get(key) ? table_.get(key)->as_array() : nullptr;
  const SourcePosition where = array && index < array->size()
                                   ? position_of((*array)[index].source(), file_)
                                   : position(key);
  throw ConfigError(where, key_name(key), "entry " + std::to_string(index + 1) + ": " + problem);
}

std::optional<TomlSection> TomlSection::subsection(std::string_view key) const {
  const toml::node* node = table_.get(key);
  if (!node) return std::nullopt;
  if (!node->is_table()) fail(key, "must be a table");
  TomlSection section(*node->as_table(), file_, key_name(key));
  section.overrides_ = overrides_;
  return section;
}

// The dotted key assigned on line `line` of a TOML text ("" where none is): what a syntax
// error in a value is about.
static std::string key_on_line(const std::string& text, std::size_t line) {
  std::istringstream lines(text);
  std::string table, content;
  for (std::size_t number = 1; number <= line && std::getline(lines, content); ++number) {
    const std::size_t first = content.find_first_not_of(" \t");
    if (first == std::string::npos) continue;
    if (content[first] == '[') {  // [table] or [[array of tables]]
      const std::size_t open = content.find_first_not_of("[ \t", first), close = content.find(']', open);
      if (number < line && open != std::string::npos && close != std::string::npos)
        table = content.substr(open, content.find_last_not_of(" \t", close - 1) - open + 1);
      continue;
    }
    if (number < line) continue;
    const std::size_t equals = content.find('=');
    if (equals == std::string::npos || content[first] == '#') return "";
    const std::string key = content.substr(first, content.find_last_not_of(" \t", equals - 1) - first + 1);
    return table.empty() ? key : table + "." + key;
  }
  return "";
}

toml::table parse_toml_file(const std::string& path) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error))
    throw ConfigError({path, 0, 0}, "", "is a directory, not a config file");
  if (std::filesystem::exists(path, error) && !std::filesystem::is_regular_file(path, error))
    throw ConfigError({path, 0, 0}, "", "is not a regular file (a config is read whole, not from a pipe)");
  if (const auto bytes = std::filesystem::file_size(path, error); !error && bytes > kMaxConfigBytes)
    throw ConfigError({path, 0, 0}, "",
                      "is " + std::to_string(bytes) + " bytes; a config file is at most 16 MiB (fields belong in "
                      ".h5 or .vti files, named from the config)");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError({path, 0, 0}, "", "cannot open the config file");
  std::ostringstream text;
  text << in.rdbuf();
  if (text.str().size() > kMaxConfigBytes)  // it grew while read
    throw ConfigError({path, 0, 0}, "", "is more than 16 MiB; a config file is at most that");
  return parse_toml_text(text.str(), path);
}

toml::table parse_toml_text(const std::string& text, const std::string& name) {
  if (text.size() > kMaxConfigBytes) throw ConfigError({name, 0, 0}, "", "is more than 16 MiB; a config is at most that");
  refuse_deep_dotted_keys(text, name);
  try {
    return toml::parse(text, name);
  } catch (const toml::parse_error& error) {
    // An expression left unquoted is the likely cause of "could not determine value type".
    const bool unquoted = error.description().find("value type") != std::string_view::npos;
    throw ConfigError(position_of(error.source(), name), key_on_line(text, error.source().begin.line),
                      "TOML syntax error: " + std::string(error.description()) +
                          (unquoted ? " (an expression is a string: quote it, x = \"-a*x\")" : ""));
  }
}

}  // namespace backsweep::detail

namespace backsweep {

namespace {

ConfigFile with_overrides(std::string path, toml::table document, std::vector<std::string> overrides) {
  for (const std::string& assignment : overrides) detail::apply_override(document, assignment);
  return {std::move(path), std::move(document), std::move(overrides), false};
}

}  // namespace

ConfigFile read_config_file(const std::string& path, std::vector<std::string> overrides) {
  if (is_petab_file(path)) {
    ConfigFile file = with_overrides(path, toml::table{}, std::move(overrides));
    file.petab = true;
    return file;
  }
  return with_overrides(path, detail::parse_toml_file(path), std::move(overrides));
}

ConfigFile config_from_text(const std::string& text, const std::string& name, std::vector<std::string> overrides) {
  return with_overrides(name, detail::parse_toml_text(text, name), std::move(overrides));
}

std::string toml_string(const std::string& text) {
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' || c == '\\' ? std::string("\\") + c : std::string(1, c);
  return quoted + '"';
}

}  // namespace backsweep
