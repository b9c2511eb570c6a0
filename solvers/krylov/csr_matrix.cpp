#include "solvers/krylov/csr_matrix.hpp"

#include <algorithm>
#include <cstdint>

namespace backsweep::krylov {

CsrMatrix CsrMatrix::transposed() const {
  CsrMatrix t;
  t.rows = columns;
  t.columns = rows;
  t.row_start.assign(columns + 1, 0);
  for (const std::uint32_t c : column) ++t.row_start[c + 1];
  for (std::size_t c = 0; c < columns; ++c) t.row_start[c + 1] += t.row_start[c];
  t.column.resize(nonzeros());
  t.value.resize(nonzeros());
  std::vector<std::size_t> next(t.row_start.begin(), t.row_start.end() - 1);
  for (std::size_t i = 0; i < rows; ++i)  // rows in order: each transposed row comes out sorted
    for (std::size_t k = row_start[i]; k < row_start[i + 1]; ++k) {
      const std::size_t at = next[column[k]]++;
      t.column[at] = static_cast<std::uint32_t>(i);
      t.value[at] = value[k];
    }
  return t;
}

CsrMatrix identity_plus(std::size_t n, std::span<const std::size_t> row_start,
                        std::span<const std::uint32_t> column_index, std::span<const double> values, double scale) {
  CsrMatrix a;
  a.rows = a.columns = n;
  a.row_start.reserve(n + 1);
  a.row_start.push_back(0);
  a.column.reserve(row_start[n] + n);
  a.value.reserve(row_start[n] + n);
  for (std::size_t i = 0; i < n; ++i) {
    bool diagonal = false;
    for (std::size_t k = row_start[i]; k < row_start[i + 1] && column_index[k] < n; ++k) {
      const std::uint32_t c = column_index[k];
      if (!diagonal && c > i) {  // J has no (i, i): the identity's own entry, in order
        a.column.push_back(static_cast<std::uint32_t>(i));
        a.value.push_back(1.0);
        diagonal = true;
      }
      a.column.push_back(c);
      a.value.push_back((c == i ? 1.0 : 0.0) + scale * values[k]);
      diagonal = diagonal || c == i;
    }
    if (!diagonal) {
      a.column.push_back(static_cast<std::uint32_t>(i));
      a.value.push_back(1.0);
    }
    a.row_start.push_back(a.column.size());
  }
  return a;
}

CsrMatrix product(const CsrMatrix& a, const CsrMatrix& b) {
  CsrMatrix c;
  c.rows = a.rows;
  c.columns = b.columns;
  c.row_start.reserve(a.rows + 1);
  c.row_start.push_back(0);
  // Dense accumulator over b's columns; `seen` marks which columns this row has touched.
  std::vector<double> sum(b.columns, 0.0);
  std::vector<std::size_t> seen(b.columns, SIZE_MAX);
  std::vector<std::uint32_t> touched;
  std::size_t terms = 0;  // at least c's nonzeros: reserved, so c is never copied as it grows
  for (const std::uint32_t j : a.column) terms += b.row_start[j + 1] - b.row_start[j];
  c.column.reserve(terms);
  c.value.reserve(terms);
  for (std::size_t i = 0; i < a.rows; ++i) {
    touched.clear();
    for (std::size_t k = a.row_start[i]; k < a.row_start[i + 1]; ++k) {
      const std::uint32_t j = a.column[k];
      for (std::size_t l = b.row_start[j]; l < b.row_start[j + 1]; ++l) {
        const std::uint32_t col = b.column[l];
        if (seen[col] != i) {
          seen[col] = i;
          sum[col] = 0.0;
          touched.push_back(col);
        }
        sum[col] += a.value[k] * b.value[l];
      }
    }
    std::sort(touched.begin(), touched.end());
    for (const std::uint32_t col : touched) {
      c.column.push_back(col);
      c.value.push_back(sum[col]);
    }
    c.row_start.push_back(c.column.size());
  }
  return c;
}

std::vector<std::size_t> diagonal_positions(const CsrMatrix& a) {
  std::vector<std::size_t> at(a.rows, SIZE_MAX);
  for (std::size_t i = 0; i < a.rows; ++i)
    for (std::size_t k = a.row_start[i]; k < a.row_start[i + 1]; ++k)
      if (a.column[k] == i) at[i] = k;
  return at;
}

}  // namespace backsweep::krylov
