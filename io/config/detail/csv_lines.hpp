#pragma once
// The lines of a small text CSV file (a header, then rows), split into trimmed cells that
// remember their column, so that readers can name file, line and column in their errors.
#include <cstddef>
#include <string>
#include <vector>

namespace backsweep::detail {

struct CsvCell {
  std::string text;
  std::size_t column;  // 1-based, in the line
};

struct CsvLine {
  std::size_t number;  // 1-based
  std::vector<CsvCell> cells;
};

// The non-blank lines of `path`, cells split at `separator` (',', or '\t' for TSV). A file
// that cannot be read, is not text, or has no line is a ConfigError; `what` names the
// file's role in it ("the measurements file").
std::vector<CsvLine> read_csv_lines(const std::string& path, const std::string& what, char separator = ',');

// The cell as a finite number, or a ConfigError naming the column.
double csv_number(const std::string& path, const CsvLine& line, const CsvCell& cell,
                  const std::string& column);

}  // namespace backsweep::detail
