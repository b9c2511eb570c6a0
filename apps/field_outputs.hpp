#pragma once
// What the commands write for a model on a grid: gradients as named fields (HDF5, JSON),
// and the VTK series ParaView opens (states, adjoint fields, gradient fields). One naming
// scheme for every sink: a field's values are `u`, its adjoint `lambda_u`, dJ by its
// initial values `dJ_du(0)` and dJ by a parameter field `dJ_dk`.
#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "apps/config_gradient.hpp"
#include "io/assembly/simulate_config.hpp"
#include "io/vtk/vtk_series.hpp"

namespace backsweep::apps {

// The fields stored one after another in `values` (points values each), by name.
std::vector<NamedField> split_fields(const std::vector<std::string>& names, const double* values, std::size_t points);

// The parameter fields held in p (after the scalar parameters), by name.
std::vector<NamedField> parameter_fields(const GridLayout& layout, const std::vector<double>& p);

// The same fields named by `name(field)`, e.g. adjoint_name.
template <class Name>
std::vector<NamedField> renamed(std::vector<NamedField> fields, Name&& name) {
  for (NamedField& field : fields) field.name = name(field.name);
  return fields;
}
inline std::string adjoint_name(const std::string& field) { return "lambda_" + field; }
inline std::string initial_gradient_name(const std::string& field) { return "dJ_d" + field + "(0)"; }
inline std::string gradient_name(const std::string& field) { return "dJ_d" + field; }

// The times at which state and adjoint fields are written (the output times, with the
// start and the end), and the field time a time of a step grid stands for: equal within rounding (1e-9 of the
// span), so an output time that is a multiple of the step matches the step grid's time.
class FieldTimes {
 public:
  explicit FieldTimes(const SimulateConfig& config);
  const std::vector<double>& times() const { return times_; }
  std::optional<std::size_t> index(double t) const;

 private:
  std::vector<double> times_;
  double tolerance_;
};

// The state and adjoint fields a gradient shows at the field times where its step grid
// passes them: the gradient's own forward sweep, so nothing is solved twice. States carry
// the parameter fields too (constant in time).
class FieldRecorder {
 public:
  FieldRecorder(const SimulateConfig& config, const std::vector<double>& parameters);
  GradientObservers observers();
  // Ascending in time; the adjoint fields named as adjoints.
  std::vector<FieldSnapshot> states() const { return present(states_); }
  std::vector<FieldSnapshot> adjoints() const { return present(adjoints_); }
  // The field times the step grid did not pass.
  std::vector<double> missed() const;

 private:
  static std::vector<FieldSnapshot> present(const std::vector<std::optional<FieldSnapshot>>& kept);
  const GridLayout& layout_;
  FieldTimes times_;
  std::vector<NamedField> parameter_fields_;
  std::vector<std::optional<FieldSnapshot>> states_, adjoints_;
};

// {"<name>": {"norm": |values|, "dataset": "<group>/<name>"}} for each field.
nlohmann::json field_norms_json(const std::vector<NamedField>& fields, const std::string& group);

}  // namespace backsweep::apps
