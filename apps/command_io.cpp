#include "apps/command_io.hpp"

#include <iostream>

#include "io/assembly/simulate_config.hpp"
#include "io/config/config_error.hpp"
#include "platform/rank_exchange.hpp"
#include "platform/ranks.hpp"

namespace backsweep::apps {

namespace {

// Text nobody reads: the Python module keeps the results instead.
std::ostream& nowhere() {
  thread_local std::ostream stream(nullptr);  // no buffer: every write fails silently (and marks it)
  return stream;
}

std::FILE* nowhere_file() {
  static std::FILE* file = std::fopen("/dev/null", "w");
  return file ? file : stderr;
}

// Copies `values` of the named field over `list`'s place in `numbers` (field k of `list`
// at offset + k * points).
void put_fields(const std::map<std::string, std::span<const double>>& given, const std::vector<std::string>& list,
                std::size_t offset, std::size_t points, std::vector<double>& numbers, const std::string& file,
                const char* kind) {
  for (const auto& [name, values] : given) {
    std::size_t k = 0;
    while (k < list.size() && list[k] != name) ++k;
    if (k == list.size())
      throw ConfigError({file, 0, 0}, name, std::string("is not one of the model's ") + kind);
    if (values.size() != points)
      throw ConfigError({file, 0, 0}, name,
                        "has " + std::to_string(values.size()) + " values; the grid has " + std::to_string(points) +
                            " points");
    std::copy(values.begin(), values.end(), numbers.begin() + std::ptrdiff_t(offset + k * points));
  }
}

}  // namespace

std::ostream& CommandIO::text() const {
  if (keep) return nowhere();
  return json ? std::cerr : std::cout;
}

std::FILE* CommandIO::text_file() const {
  if (keep) return nowhere_file();
  return json ? stderr : stdout;
}

bool CommandIO::writes_outputs() const {
  ranks::check_others();
  return write_outputs;
}

void CommandIO::finish(nlohmann::json object) {
  object["ranks"] = ranks::count();
  if (ranks::count() > 1) object["split"] = split;
  if (keep)
    results = std::move(object);
  else if (json)
    std::cout << object.dump() << '\n';
}

void CommandIO::keep_array(std::string path, std::vector<std::size_t> shape, std::vector<double> values) {
  if (keep) arrays.push_back({std::move(path), std::move(shape), std::move(values)});
}

void CommandIO::use_given_fields(SimulateConfig& config) const {
  if (initial_fields.empty() && parameter_fields.empty()) return;
  const GridLayout* layout = config.fields();
  if (!layout) throw ConfigError({config.file, 0, 0}, "", "arrays were given for fields, but the model has no [grid]");
  const std::size_t points = layout->grid().points();
  put_fields(initial_fields, layout->fields(), 0, points, config.initial_state, config.file, "fields");
  put_fields(parameter_fields, layout->parameter_fields(), layout->scalar_parameters(), points, config.parameters,
             config.file, "parameter fields");
}

}  // namespace backsweep::apps
