#include "io/config/detail/csv_lines.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "io/config/config_error.hpp"

namespace backsweep::detail {

namespace {

std::vector<CsvCell> split(const std::string& line, char separator) {
  std::vector<CsvCell> cells;
  std::size_t start = 0;
  const auto blank = [separator](char c) { return c == ' ' || c == '\r' || (c == '\t' && separator != '\t'); };
  for (;;) {
    const std::size_t comma = line.find(separator, start);
    std::string text = line.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    std::size_t lead = 0;
    while (lead < text.size() && blank(text[lead])) ++lead;
    std::size_t end = text.size();
    while (end > lead && blank(text[end - 1])) --end;
    cells.push_back({text.substr(lead, end - lead), start + lead + 1});
    if (comma == std::string::npos) return cells;
    start = comma + 1;
  }
}

}  // namespace

std::vector<CsvLine> read_csv_lines(const std::string& path, const std::string& what, char separator) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error))
    throw ConfigError({path, 0, 0}, "", what + " is a directory, not a CSV file");
  if (std::filesystem::exists(path, error) && !std::filesystem::is_regular_file(path, error))
    throw ConfigError({path, 0, 0}, "", what + " is not a regular file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError({path, 0, 0}, "", "cannot read " + what);
  std::string content{std::istreambuf_iterator<char>(in), {}};
  if (content.starts_with("\xEF\xBB\xBF")) content.erase(0, 3);  // a UTF-8 byte order mark, as in TOML
  const auto control = std::find_if(content.begin(), content.end(), [](char c) {
    return ((unsigned char)c < 32 && c != '\n' && c != '\r' && c != '\t') || c == 0x7F;
  });
  if (control != content.end()) {
    const std::size_t at = std::size_t(control - content.begin()), previous_end = content.rfind('\n', at);
    const std::size_t line = 1 + std::size_t(std::count(content.begin(), control, '\n'));
    const std::size_t column = previous_end == std::string::npos ? at + 1 : at - previous_end;
    throw ConfigError({path, line, column}, "", "is not a text CSV file: a control character (byte " +
                                                   std::to_string((unsigned char)*control) + ")");
  }
  std::vector<CsvLine> lines;
  std::size_t number = 0, start = 0;
  while (start < content.size()) {
    std::size_t end = content.find('\n', start);
    if (end == std::string::npos) end = content.size();
    const std::string line = content.substr(start, end - start);
    start = end + 1;
    ++number;
    if (line.find_first_not_of(" \t\r") != std::string::npos) lines.push_back({number, split(line, separator)});
  }
  if (lines.empty()) throw ConfigError({path, 0, 0}, "", "is empty");
  return lines;
}

double csv_number(const std::string& path, const CsvLine& line, const CsvCell& cell,
                  const std::string& column) {
  char* stop = nullptr;
  const double x = std::strtod(cell.text.c_str(), &stop);
  if (cell.text.empty() || *stop != '\0' || !std::isfinite(x))
    throw ConfigError({path, line.number, cell.column}, "",
                      "column '" + column + "': '" + cell.text + "' is not a finite number");
  return x;
}

}  // namespace backsweep::detail
