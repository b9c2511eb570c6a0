#include "models/sparsity.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

namespace backsweep {

SparsityPattern SparsityPattern::from_rows(std::size_t n_state, std::size_t n_param,
                                           std::vector<std::vector<std::uint32_t>> row_columns) {
  if (row_columns.size() != n_state)
    throw std::invalid_argument("sparsity pattern: " + std::to_string(row_columns.size()) +
                                " rows given for " + std::to_string(n_state) + " states");
  SparsityPattern pattern;
  pattern.rows = n_state;
  pattern.columns = n_state + n_param;
  pattern.row_start.reserve(n_state + 1);
  for (std::size_t i = 0; i < n_state; ++i) {
    std::vector<std::uint32_t>& columns = row_columns[i];
    std::sort(columns.begin(), columns.end());
    columns.erase(std::unique(columns.begin(), columns.end()), columns.end());
    if (!columns.empty() && columns.back() >= pattern.columns)
      throw std::invalid_argument("sparsity pattern: row " + std::to_string(i) + " has column " +
                                  std::to_string(columns.back()) + ", but there are only " +
                                  std::to_string(pattern.columns) + " columns");
    pattern.column_index.insert(pattern.column_index.end(), columns.begin(), columns.end());
    pattern.row_start.push_back(pattern.column_index.size());
  }
  return pattern;
}

bool SparsityPattern::is_valid(std::string* error) const {
  const auto fail = [&](std::string message) {
    if (error) *error = std::move(message);
    return false;
  };
  if (columns < rows)
    return fail(std::to_string(columns) + " columns for " + std::to_string(rows) +
                " rows: there must be one column per state, then the parameters");
  if (columns > std::size_t{UINT32_MAX})
    return fail(std::to_string(columns) + " columns: column indices are 32-bit");
  if (row_start.size() != rows + 1)
    return fail("row_start has " + std::to_string(row_start.size()) + " entries for " +
                std::to_string(rows) + " rows (needs rows + 1)");
  if (row_start.front() != 0) return fail("row_start[0] is not 0");
  if (row_start.back() != column_index.size())
    return fail("row_start ends at " + std::to_string(row_start.back()) + " but there are " +
                std::to_string(column_index.size()) + " column indices");
  for (std::size_t i = 0; i < rows; ++i) {
    if (row_start[i] > row_start[i + 1])
      return fail("row_start decreases at row " + std::to_string(i));
    for (std::size_t k = row_start[i]; k < row_start[i + 1]; ++k) {
      if (column_index[k] >= columns)
        return fail("row " + std::to_string(i) + " has column " +
                    std::to_string(column_index[k]) + ", outside 0 .. " +
                    std::to_string(columns - 1));
      if (k > row_start[i] && column_index[k] <= column_index[k - 1])
        return fail("row " + std::to_string(i) +
                    "'s columns are not strictly increasing (unsorted or repeated) at " +
                    std::to_string(column_index[k]));
    }
  }
  return true;
}

namespace {

constexpr std::uint32_t kUncoloured = UINT32_MAX;

// The rows of each column (the pattern's transpose), to find a column's neighbours.
struct ColumnRows {
  std::vector<std::size_t> column_start;
  std::vector<std::uint32_t> row_of;

  explicit ColumnRows(const SparsityPattern& pattern) : column_start(pattern.columns + 1, 0), row_of(pattern.nnz()) {
    for (std::uint32_t column : pattern.column_index) ++column_start[column + 1];
    for (std::size_t j = 0; j < pattern.columns; ++j) column_start[j + 1] += column_start[j];
    std::vector<std::size_t> fill(column_start.begin(), column_start.end() - 1);
    for (std::size_t i = 0; i < pattern.rows; ++i)
      for (std::uint32_t column : pattern.row(i)) row_of[fill[column]++] = static_cast<std::uint32_t>(i);
  }
};

// Greedy in natural order over the columns from `first` on, those before coloured already.
void colour_greedily(const SparsityPattern& pattern, const ColumnRows& transpose, ColumnColouring& colouring,
                     std::size_t first) {
  const std::size_t columns = pattern.columns;
  const auto& [column_start, row_of] = transpose;
  // forbidden[c] == j + 1: colour c is taken by a neighbour of column j. Stamping with
  // the column avoids clearing the array for every column.
  std::vector<std::size_t> forbidden;
  for (std::size_t j = first; j < columns; ++j) {
    if (j == pattern.rows) colouring.state_colours = colouring.colours;
    forbidden.resize(colouring.colours + 1, 0);
    for (std::size_t k = column_start[j]; k < column_start[j + 1]; ++k)
      for (std::uint32_t neighbour : pattern.row(row_of[k]))
        if (const std::uint32_t c = colouring.colour_of[neighbour]; c != kUncoloured)
          forbidden[c] = j + 1;
    std::uint32_t colour = 0;
    while (forbidden[colour] == j + 1) ++colour;
    colouring.colour_of[j] = colour;
    colouring.colours = std::max<std::size_t>(colouring.colours, colour + 1);
  }
  if (columns == pattern.rows) colouring.state_colours = colouring.colours;
}

}  // namespace

ColumnColouring colour_columns(const SparsityPattern& pattern, const Grid* grid) {
  std::string error;
  if (!pattern.is_valid(&error)) throw std::invalid_argument("colour_columns: " + error);
  const ColumnRows transpose(pattern);
  ColumnColouring greedy;
  greedy.colour_of.assign(pattern.columns, kUncoloured);
  const auto lattice = grid ? detail::lattice_colouring(pattern, *grid) : std::nullopt;
  if (!lattice) {
    colour_greedily(pattern, transpose, greedy, 0);
    return greedy;
  }
  ColumnColouring colouring = greedy;
  std::copy(lattice->begin(), lattice->end(), colouring.colour_of.begin());
  colouring.colours = colouring.state_colours = *std::max_element(lattice->begin(), lattice->end()) + 1;
  std::size_t longest = 0;  // no colouring takes fewer state colours than a row has state columns
  for (std::size_t i = 0; i < pattern.rows; ++i) {
    const auto row = pattern.row(i);
    longest = std::max<std::size_t>(longest, std::lower_bound(row.begin(), row.end(), pattern.rows) - row.begin());
  }
  if (colouring.state_colours > longest) {  // not known best: greedy's may take fewer
    colour_greedily(pattern, transpose, greedy, 0);
    if (greedy.state_colours <= colouring.state_colours) return greedy;
  }
  colour_greedily(pattern, transpose, colouring, pattern.rows);
  return colouring;
}

}  // namespace backsweep
