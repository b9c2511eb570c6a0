#include "io/config/ensemble_config.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <variant>

#include "fit/multistart.hpp"
#include "io/config/config_error.hpp"
#include "io/config/detail/csv_lines.hpp"
#include "io/config/ensemble_section.hpp"
#include "io/config/detail/joined.hpp"

namespace backsweep {

namespace {

using detail::TomlSection;

constexpr std::size_t kMaxSamples = 10'000'000;

std::string known_names(const SimulateSpec& config) {
  std::vector<std::string> names = config.parameter_names;
  names.insert(names.end(), config.state_names.begin(), config.state_names.end());
  return detail::joined(names);
}

// What `name` varies, or an error message.
std::variant<VariedValue, std::string> varied_value(const SimulateSpec& config, const std::string& name) {
  const auto& p = config.parameter_names;
  const auto& s = config.state_names;
  const auto in_p = std::find(p.begin(), p.end(), name);
  const auto in_s = std::find(s.begin(), s.end(), name);
  if (in_p != p.end()) return VariedValue{name, false, std::size_t(in_p - p.begin())};
  if (in_s == s.end()) return "unknown name '" + name + "' (parameters and states: " + known_names(config) + ")";
  const std::size_t i = std::size_t(in_s - s.begin());
  if (config.initial_formulas[i])
    return "the initial state '" + name + "' is an expression of the parameters in [initial]: vary the parameters";
  return VariedValue{name, true, i};
}

EnsembleConfig read_members_csv(const TomlSection& section, const SimulateSpec& config) {
  const std::string name = section.string("members", "");
  std::filesystem::path path(name);
  if (path.is_relative()) path = std::filesystem::path(config.file).parent_path() / path;
  const std::string file = path.string();
  const std::vector<detail::CsvLine> lines = detail::read_csv_lines(file, "the ensemble's members file");
  EnsembleConfig ensemble;
  ensemble.source = name;
  const detail::CsvLine& header = lines.front();
  for (const detail::CsvCell& cell : header.cells) {
    auto varied = varied_value(config, cell.text);
    if (auto* problem = std::get_if<std::string>(&varied))
      throw ConfigError({file, header.number, cell.column}, "", *problem);
    for (const VariedValue& v : ensemble.varied)
      if (v.name == cell.text)
        throw ConfigError({file, header.number, cell.column}, "", "column '" + cell.text + "' appears twice");
    ensemble.varied.push_back(std::get<VariedValue>(varied));
  }
  for (std::size_t l = 1; l < lines.size(); ++l) {
    const detail::CsvLine& line = lines[l];
    if (line.cells.size() != header.cells.size())
      throw ConfigError({file, line.number, 1}, "",
                        "has " + std::to_string(line.cells.size()) + " fields, the header " +
                            std::to_string(header.cells.size()));
    std::vector<double> row;
    for (std::size_t c = 0; c < line.cells.size(); ++c)
      row.push_back(detail::csv_number(file, line, line.cells[c], header.cells[c].text));
    ensemble.members.push_back(std::move(row));
  }
  if (ensemble.members.empty()) throw ConfigError({file, header.number, 0}, "", "has a header but no member");
  return ensemble;
}

EnsembleConfig read_samples(const TomlSection& section, const SimulateSpec& config) {
  const std::size_t samples = section.count("samples", 0);
  if (samples == 0 || samples > kMaxSamples) section.fail("samples", "must lie between 1 and 10^7");
  const auto ranges = section.subsection("ranges");
  if (!ranges || ranges->table().empty())
    section.fail("samples", "needs [ensemble.ranges]: name = [lower, upper] for what varies");
  EnsembleConfig ensemble;
  const std::size_t seed = section.count("seed", 1);
  ensemble.source = "latin_hypercube, seed " + std::to_string(seed);
  std::vector<double> lower, upper;
  for (const auto& [key, node] : ranges->table()) {
    const std::string name(key.str());
    auto varied = varied_value(config, name);
    if (auto* problem = std::get_if<std::string>(&varied)) ranges->fail_at_key(name, *problem);
    const std::vector<double> range = ranges->number_array(name);
    if (range.size() != 2 || !std::isfinite(range[0]) || !std::isfinite(range[1]) || !(range[0] < range[1]))
      ranges->fail(name, "must be [lower, upper] with finite lower < upper");
    ensemble.varied.push_back(std::get<VariedValue>(varied));
    lower.push_back(range[0]);
    upper.push_back(range[1]);
  }
  ensemble.members = latin_hypercube(samples, lower, upper, seed);
  return ensemble;
}

}  // namespace

namespace detail {

std::optional<EnsembleConfig> read_ensemble(const TomlSection& root, const SimulateSpec& config) {
  const auto section = root.subsection("ensemble");
  if (!section) return std::nullopt;
  section->reject_unknown_keys({"members", "samples", "seed", "ranges"});
  if (config.fields())
    section->fail(section->has("samples") ? "samples" : "members", "ensembles vary ODE models; this model is on a [grid]");
  if (section->has("members") == section->has("samples"))
    section->fail("members", "give either members (a CSV file) or samples (with [ensemble.ranges])");
  if (section->has("members")) {
    for (const char* key : {"seed", "ranges"})
      if (section->has(key)) section->fail(key, "is for samples, not for a members file");
    return read_members_csv(*section, config);
  }
  return read_samples(*section, config);
}

}  // namespace detail

}  // namespace backsweep
