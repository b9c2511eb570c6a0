#pragma once
// One PEtab table (TSV with a header row): cells by row and column name, and errors that
// name the file, the line and the column.
#include <cstddef>
#include <initializer_list>
#include <string>
#include <vector>

#include "io/config/detail/csv_lines.hpp"

namespace backsweep {
struct SourcePosition;  // io/config/config_error.hpp
}

namespace backsweep::detail {

class PetabTable {
 public:
  // `what` names the table in errors ("the measurement table").
  PetabTable(std::string path, const std::string& what);

  const std::string& path() const { return path_; }
  std::size_t rows() const { return lines_.size() - 1; }
  bool has(const std::string& column) const { return index(column) != kAbsent; }
  const std::vector<std::string>& columns() const { return columns_; }
  // Each column named is required: a ConfigError at the header names the first missing.
  void require(std::initializer_list<const char*> columns) const;

  // The cell's text ("" where the column or the cell is absent).
  const std::string& text(std::size_t row, const std::string& column) const;
  // The cell as a number: finite, or also ±inf ("inf", "-inf") where `infinite` is true.
  double number(std::size_t row, const std::string& column, bool infinite = false) const;
  // "true"/"false" (format 2) or 1/0 (format 1).
  bool flag(std::size_t row, const std::string& column) const;
  // Values separated by ';' (placeholders' overrides), trimmed; none for an empty cell.
  std::vector<std::string> list(std::size_t row, const std::string& column) const;

  SourcePosition at(std::size_t row, const std::string& column = "") const;
  [[noreturn]] void fail(std::size_t row, const std::string& column, const std::string& problem) const;

 private:
  static constexpr std::size_t kAbsent = ~std::size_t{0};
  std::size_t index(const std::string& column) const;

  std::string path_;
  std::vector<CsvLine> lines_;  // the header first
  std::vector<std::string> columns_;
};

}  // namespace backsweep::detail
