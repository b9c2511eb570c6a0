#include "io/measurements.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <optional>

#include "io/config_error.hpp"

namespace backsweep {

namespace {

struct Cell {
  std::string text;
  std::size_t column;  // 1-based, in the line
};

std::vector<Cell> split(const std::string& line) {
  std::vector<Cell> cells;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = line.find(',', start);
    std::string text = line.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    std::size_t lead = 0;
    while (lead < text.size() && (text[lead] == ' ' || text[lead] == '\t')) ++lead;
    std::size_t end = text.size();
    while (end > lead && (text[end - 1] == ' ' || text[end - 1] == '\t' || text[end - 1] == '\r')) --end;
    cells.push_back({text.substr(lead, end - lead), start + lead + 1});
    if (comma == std::string::npos) return cells;
    start = comma + 1;
  }
}

std::string joined(const std::vector<std::string>& names) {
  std::string text;
  for (const auto& name : names) text += (text.empty() ? "" : ", ") + name;
  return text;
}

}  // namespace

std::vector<Measurement> read_measurements_csv(const std::string& path,
                                               const MeasurementRules& rules) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError({path, 0, 0}, "", "cannot read the measurements file");
  const std::string content{std::istreambuf_iterator<char>(in), {}};
  auto fail = [&](std::size_t line, std::size_t column, const std::string& problem) {
    throw ConfigError({path, line, column}, "", problem);
  };
  if (content.find('\0') != std::string::npos ||
      std::any_of(content.begin(), content.end(),
                  [](char c) { return (unsigned char)c < 32 && c != '\n' && c != '\r' && c != '\t'; }))
    fail(0, 0, "is not a text CSV file");
  if (content.find_first_not_of(" \t\r\n") == std::string::npos) fail(0, 0, "is empty");

  enum Column { observable, time, value, sigma, experiment, kColumns };
  const char* const names[kColumns] = {"observable", "time", "value", "sigma", "experiment"};
  std::optional<std::size_t> where[kColumns];
  std::vector<Measurement> rows;
  std::vector<double> last_time(rules.experiments.size(), -INFINITY);
  std::size_t line_number = 0, columns = 0;
  std::size_t start = 0;
  bool header = true;
  while (start < content.size()) {
    std::size_t end = content.find('\n', start);
    if (end == std::string::npos) end = content.size();
    const std::string line = content.substr(start, end - start);
    start = end + 1;
    ++line_number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;  // blank
    const std::vector<Cell> cells = split(line);
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
    auto number = [&](Column c) {
      const Cell& cell = cells[*where[c]];
      char* stop = nullptr;
      const double x = std::strtod(cell.text.c_str(), &stop);
      if (cell.text.empty() || *stop != '\0' || !std::isfinite(x))
        fail(line_number, cell.column,
             std::string("column '") + names[c] + "': '" + cell.text + "' is not a finite number");
      return x;
    };
    auto index_of = [&](Column c, const std::vector<std::string>& known, const char* what) {
      const Cell& cell = cells[*where[c]];
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
