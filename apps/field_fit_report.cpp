#include "apps/field_fit_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "apps/config_fit.hpp"
#include "apps/field_outputs.hpp"
#include "apps/json_number.hpp"
#include "apps/command_io.hpp"

namespace backsweep::apps {

nlohmann::json field_summaries_json(const FitReport& report, const std::vector<NamedField>& priors) {
  nlohmann::json summaries = nlohmann::json::object();
  for (std::size_t f = 0; f < report.parameter_fields.size(); ++f) {
    const std::vector<double>& values = report.parameter_fields[f].values;
    const auto [low, high] = std::minmax_element(values.begin(), values.end());
    double change = 0, size = 0;
    for (std::size_t j = 0; j < values.size(); ++j) {
      change += (values[j] - priors[f].values[j]) * (values[j] - priors[f].values[j]);
      size += priors[f].values[j] * priors[f].values[j];
    }
    const std::string& name = report.parameter_fields[f].name;
    summaries[name] = {{"min", *low},
                       {"max", *high},
                       {"relative_change", finite_or_null(std::sqrt(change / size))},
                       {"dataset", "/parameter_fields/" + name}};
  }
  return summaries;
}

void print_field_summaries(const FitReport& report, const nlohmann::json& summaries, const CommandIO& io) {
  for (const NamedField& field : report.parameter_fields) {  // in config order
    const nlohmann::json& s = summaries.at(field.name);
    const double change = s["relative_change"].is_null() ? NAN : s["relative_change"].get<double>();
    std::fprintf(io.text_file(), "  %-12s field in [%.6g, %.6g], %.3g relative change from the prior "
                 "(fit.h5:/parameter_fields/%s)\n", field.name.c_str(), s["min"].get<double>(),
                 s["max"].get<double>(), change, field.name.c_str());
  }
}

nlohmann::json field_fit_json(const FitReport& report, const StartResult& best, double misfit, double penalty,
                              const nlohmann::json& summaries) {
  return {{"objective", best.objective},
          {"misfit", misfit},
          {"regularization", penalty},
          {"converged", best.converged},
          {"reason", best.reason},
          {"iterations", best.iterations},
          {"evaluations", best.evaluations},
          {"gradient_mode", report.gradient_mode},
          {"parameters", parameters_json(report)},
          {"parameter_fields", summaries}};
}

void write_field_fit_vtk(const std::string& folder, const FitConfig& config, const FitReport& report,
                         const std::vector<NamedField>& priors, const std::vector<NamedField>& gradients,
                         std::vector<std::vector<FieldSnapshot>> adjoints) {
  const Grid& grid = config.simulate.fields()->grid();
  FieldSnapshot snapshot{config.simulate.integrate.t0, {}};
  for (std::size_t f = 0; f < priors.size(); ++f) {
    snapshot.fields.push_back(report.parameter_fields[f]);
    snapshot.fields.push_back({priors[f].name + "_prior", priors[f].values});
    snapshot.fields.push_back({gradient_name(gradients[f].name), gradients[f].values});
  }
  write_vtk_series(folder, "fit", grid, {snapshot});
  for (std::size_t e = 0; e < adjoints.size() && config.gradient_mode == GradientMode::adjoint; ++e) {
    std::reverse(adjoints[e].begin(), adjoints[e].end());  // recorded backward in time
    write_vtk_series(folder, adjoints.size() == 1 ? "adjoint" : "adjoint_" + config.experiments[e].id, grid,
                     adjoints[e]);
  }
}

}  // namespace backsweep::apps
