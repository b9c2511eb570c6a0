#include "io/config/detail/petab_table.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "io/config/config_error.hpp"

namespace backsweep::detail {

namespace {
const std::string kEmpty;
}

PetabTable::PetabTable(std::string path, const std::string& what)
    : path_(std::move(path)), lines_(read_csv_lines(path_, what, '\t')) {
  for (const CsvCell& cell : lines_.front().cells) {
    if (std::find(columns_.begin(), columns_.end(), cell.text) != columns_.end())
      throw ConfigError({path_, lines_.front().number, cell.column}, "", "the column '" + cell.text + "' is named twice");
    columns_.push_back(cell.text);
  }
}

std::size_t PetabTable::index(const std::string& column) const {
  const auto it = std::find(columns_.begin(), columns_.end(), column);
  return it == columns_.end() ? kAbsent : std::size_t(it - columns_.begin());
}

void PetabTable::require(std::initializer_list<const char*> columns) const {
  for (const char* column : columns)
    if (!has(column))
      throw ConfigError({path_, lines_.front().number, 1}, "", "the column '" + std::string(column) + "' is missing");
}

const std::string& PetabTable::text(std::size_t row, const std::string& column) const {
  const std::size_t i = index(column);
  const auto& cells = lines_.at(row + 1).cells;
  return i < cells.size() ? cells[i].text : kEmpty;
}

SourcePosition PetabTable::at(std::size_t row, const std::string& column) const {
  const CsvLine& line = lines_.at(row + 1);
  const std::size_t i = column.empty() ? kAbsent : index(column);
  return {path_, line.number, i < line.cells.size() ? line.cells[i].column : 1};
}

void PetabTable::fail(std::size_t row, const std::string& column, const std::string& problem) const {
  throw ConfigError(at(row, column), "", (column.empty() ? "" : "column '" + column + "': ") + problem);
}

double PetabTable::number(std::size_t row, const std::string& column, bool infinite) const {
  const std::string& cell = text(row, column);
  char* stop = nullptr;
  const double x = std::strtod(cell.c_str(), &stop);
  if (cell.empty() || *stop != '\0' || std::isnan(x) || (std::isinf(x) && !infinite))
    fail(row, column, "'" + cell + "' is not " + (infinite ? "a number" : "a finite number"));
  return x;
}

bool PetabTable::flag(std::size_t row, const std::string& column) const {
  const std::string& cell = text(row, column);
  if (cell == "1" || cell == "true" || cell == "True" || cell == "TRUE") return true;
  if (cell == "0" || cell == "false" || cell == "False" || cell == "FALSE") return false;
  fail(row, column, "'" + cell + "' is neither true (1) nor false (0)");
}

std::vector<std::string> PetabTable::list(std::size_t row, const std::string& column) const {
  std::vector<std::string> values;
  const std::string& cell = text(row, column);
  if (cell.empty()) return values;
  std::size_t start = 0;
  for (;;) {
    const std::size_t end = cell.find(';', start);
    std::string value = cell.substr(start, end == std::string::npos ? std::string::npos : end - start);
    value.erase(0, value.find_first_not_of(' '));
    value.erase(value.find_last_not_of(' ') + 1);
    if (value.empty()) fail(row, column, "an empty value in '" + cell + "'");
    values.push_back(value);
    if (end == std::string::npos) return values;
    start = end + 1;
  }
}

}  // namespace backsweep::detail
