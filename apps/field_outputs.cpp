#include "apps/field_outputs.hpp"

#include <algorithm>
#include <cmath>

namespace backsweep::apps {

std::vector<NamedField> split_fields(const std::vector<std::string>& names, const double* values, std::size_t points) {
  std::vector<NamedField> fields;
  for (std::size_t f = 0; f < names.size(); ++f)
    fields.push_back({names[f], std::vector<double>(values + f * points, values + (f + 1) * points)});
  return fields;
}

std::vector<double> field_output_times(const SimulateConfig& config) {
  std::vector<double> times = config.integrate.output_times;
  times.push_back(config.integrate.t0);
  times.push_back(config.integrate.t1);
  std::sort(times.begin(), times.end());
  times.erase(std::unique(times.begin(), times.end()), times.end());
  return times;
}

nlohmann::json field_norms_json(const std::vector<NamedField>& fields, const std::string& group) {
  nlohmann::json json = nlohmann::json::object();
  for (const NamedField& field : fields) {
    double squares = 0;
    for (double v : field.values) squares += v * v;
    json[field.name] = {{"norm", std::sqrt(squares)}, {"dataset", group + "/" + field.name}};
  }
  return json;
}

}  // namespace backsweep::apps
