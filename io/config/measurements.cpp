#include "io/config/measurements.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "io/config/config_error.hpp"
#include "io/config/detail/csv_lines.hpp"
#include "io/config/detail/joined.hpp"

namespace backsweep {

namespace {

using detail::joined;

}  // namespace

std::vector<Measurement> read_measurements_csv(const std::string& path,
                                               const MeasurementRules& rules) {
  const std::vector<detail::CsvLine> lines = detail::read_csv_lines(path, "the measurements file");
  auto fail = [&](std::size_t line, std::size_t column, const std::string& problem) {
    throw ConfigError({path, line, column}, "", problem);
  };
  enum Column { observable, time, value, sigma, experiment, kColumns };
  const char* const names[kColumns] = {"observable", "time", "value", "sigma", "experiment"};
  std::optional<std::size_t> where[kColumns];
  std::vector<Measurement> rows;
  std::vector<double> last_time(rules.experiments.size(), -INFINITY);
  std::size_t line_number = 0, columns = 0;
  bool header = true;
  for (const detail::CsvLine& line : lines) {
    line_number = line.number;
    const std::vector<detail::CsvCell>& cells = line.cells;
    if (header) {
      header = false;
      columns = cells.size();
      for (std::size_t c = 0; c < cells.size(); ++c) {
        const auto* found = std::find_if(std::begin(names), std::end(names),
                                         [&](const char* n) { return cells[c].text == n; });
        if (found == std::end(names))
          fail(line_number, cells[c].column,
               "unknown column '" + cells[c].text +
                   "' (columns: observable, time, value, sigma, experiment)");
        auto& slot = where[found - std::begin(names)];
        if (slot) fail(line_number, cells[c].column, "column '" + cells[c].text + "' appears twice");
        slot = c;
      }
      for (Column needed : {observable, time, value})
        if (!where[needed]) fail(line_number, 1, std::string("the header lacks column '") + names[needed] + "'");
      if (rules.sigma_required && !where[sigma])
        fail(line_number, 1, "the header lacks column 'sigma' (needed with noise.sigma = \"data\")");
      continue;
    }
    if (cells.size() != columns)
      fail(line_number, 1, "has " + std::to_string(cells.size()) + " fields, the header " +
                               std::to_string(columns));
    auto number = [&](Column c) { return detail::csv_number(path, line, cells[*where[c]], names[c]); };
    auto index_of = [&](Column c, const std::vector<std::string>& known, const char* what) {
      const detail::CsvCell& cell = cells[*where[c]];
      const auto it = std::find(known.begin(), known.end(), cell.text);
      if (it == known.end())
        fail(line_number, cell.column,
             std::string("column '") + names[c] + "': unknown " + what + " '" + cell.text +
                 "' (known: " + joined(known) + ")");
      return std::size_t(it - known.begin());
    };
    Measurement m;
    m.observable = index_of(observable, rules.observables, "observable");
    m.experiment = where[experiment] ? index_of(experiment, rules.experiments, "experiment") : 0;
    m.time = number(time);
    m.value = number(value);
    if (where[sigma]) {
      m.sigma = number(sigma);
      if (!(m.sigma > 0.0)) fail(line_number, cells[*where[sigma]].column, "column 'sigma': must be > 0");
    }
    const std::size_t time_column = cells[*where[time]].column;
    if (m.time < rules.t0 || m.time > rules.t1)
      fail(line_number, time_column,
           "column 'time': " + cells[*where[time]].text + " lies outside [time.start, time.end]");
    if (m.time < last_time[m.experiment])
      fail(line_number, time_column, "column 'time': times must not decrease within an experiment");
    last_time[m.experiment] = m.time;
    rows.push_back(m);
  }
  if (rows.empty()) fail(line_number, 0, "has no measurements");
  return rows;
}

}  // namespace backsweep
