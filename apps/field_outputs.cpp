#include "apps/field_outputs.hpp"

#include <algorithm>
#include <cmath>

namespace backsweep::apps {

namespace {

// The output times, with the start and the end.
std::vector<double> field_output_times(const SimulateConfig& config) {
  std::vector<double> times = config.integrate.output_times;
  times.push_back(config.integrate.t0);
  times.push_back(config.integrate.t1);
  std::sort(times.begin(), times.end());
  times.erase(std::unique(times.begin(), times.end()), times.end());
  return times;
}

}  // namespace

std::vector<NamedField> split_fields(const std::vector<std::string>& names, const double* values, std::size_t points) {
  std::vector<NamedField> fields;
  for (std::size_t f = 0; f < names.size(); ++f)
    fields.push_back({names[f], std::vector<double>(values + f * points, values + (f + 1) * points)});
  return fields;
}

std::vector<NamedField> parameter_fields(const GridLayout& layout, const std::vector<double>& p) {
  return split_fields(layout.parameter_fields(), p.data() + layout.scalar_parameters(), layout.grid().points());
}

FieldTimes::FieldTimes(const SimulateConfig& config)
    : times_(field_output_times(config)), tolerance_(1e-9 * (config.integrate.t1 - config.integrate.t0)) {}

std::optional<std::size_t> FieldTimes::index(double t) const {
  const auto after = std::lower_bound(times_.begin(), times_.end(), t);
  for (auto it : {after, after == times_.begin() ? after : after - 1})
    if (it != times_.end() && std::abs(*it - t) <= tolerance_) return std::size_t(it - times_.begin());
  return std::nullopt;
}

FieldRecorder::FieldRecorder(const SimulateConfig& config, const std::vector<double>& parameters)
    : layout_(*config.fields()), times_(config),
      parameter_fields_(parameter_fields(layout_, parameters)),
      states_(times_.times().size()), adjoints_(times_.times().size()) {}

GradientObservers FieldRecorder::observers() {
  const std::size_t points = layout_.grid().points();
  // A state is shown again when a checkpoint schedule recomputes it, bitwise the same.
  auto forward = [this, points](double t, const double* y) {
    const auto k = times_.index(t);
    if (!k || states_[*k]) return;
    FieldSnapshot snapshot{times_.times()[*k], split_fields(layout_.fields(), y, points)};
    snapshot.fields.insert(snapshot.fields.end(), parameter_fields_.begin(), parameter_fields_.end());
    states_[*k] = std::move(snapshot);
  };
  auto adjoint = [this, points](double t, const double* lambda) {
    if (const auto k = times_.index(t); k && !adjoints_[*k])
      adjoints_[*k] = FieldSnapshot{times_.times()[*k],
                                    renamed(split_fields(layout_.fields(), lambda, points), adjoint_name)};
  };
  return {forward, adjoint};
}

std::vector<double> FieldRecorder::missed() const {
  std::vector<double> missed;
  for (std::size_t k = 0; k < states_.size(); ++k)
    if (!states_[k]) missed.push_back(times_.times()[k]);
  return missed;
}

std::vector<FieldSnapshot> FieldRecorder::present(const std::vector<std::optional<FieldSnapshot>>& kept) {
  std::vector<FieldSnapshot> snapshots;
  for (const auto& snapshot : kept)
    if (snapshot) snapshots.push_back(*snapshot);
  return snapshots;
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
