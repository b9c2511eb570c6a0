#include "io/outputs/fit_output.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "platform/atomic_file.hpp"
#include "io/outputs/detail/hdf5_handle.hpp"

namespace backsweep {

namespace {

using detail::Hdf5Handle;

void write_trajectories_csv(const FitReport& r, const std::filesystem::path& temporary,
                            const std::string& path) {
  std::ofstream out(temporary);
  out.precision(17);
  out << "experiment,time";
  for (const auto& name : r.state_names) out << ',' << name;
  for (const auto& name : r.observable_names) out << ',' << name;
  out << '\n';
  const std::size_t n = r.state_names.size(), m = r.observable_names.size();
  for (std::size_t e = 0; e < r.trajectories.size(); ++e) {
    const auto& t = r.trajectories[e];
    for (std::size_t row = 0; row < t.times.size(); ++row) {
      out << r.experiment_ids[e] << ',' << t.times[row];
      for (std::size_t i = 0; i < n; ++i) out << ',' << t.states[row * n + i];
      for (std::size_t o = 0; o < m; ++o) out << ',' << t.observables[row * m + o];
      out << '\n';
    }
  }
  out.close();
  if (!out) throw std::runtime_error("cannot write " + path);
}

void write_residuals_csv(const FitReport& r, const std::filesystem::path& temporary,
                         const std::string& path) {
  std::ofstream out(temporary);
  out.precision(17);
  out << "experiment,observable,time,value,sigma,prediction,residual\n";
  for (std::size_t k = 0; k < r.measurements.size(); ++k) {
    const Measurement& m = r.measurements[k];
    out << r.experiment_ids[m.experiment] << ',' << r.observable_names[m.observable] << ','
        << m.time << ',' << m.value << ',' << r.sigmas[k] << ',' << r.predictions[k] << ','
        << (r.predictions[k] - m.value) / r.sigmas[k] << '\n';
  }
  out.close();
  if (!out) throw std::runtime_error("cannot write " + path);
}

std::vector<std::string> estimated_names(const FitReport& r) {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < r.parameter_names.size(); ++i)
    if (r.estimated[i] != 0.0) names.push_back(r.parameter_names[i]);
  return names;
}

// The covariance of the estimated parameters in their own units (the delta method: a
// log10-scaled p = 10^s has dp/ds = p ln 10, a log-scaled p = e^s dp/ds = p), and their
// correlation.
std::pair<std::vector<double>, std::vector<double>> linear_covariance(const FitReport& r) {
  std::vector<double> slope;
  for (std::size_t i = 0; i < r.values.size(); ++i)
    if (r.estimated[i] != 0.0) slope.push_back(r.scales[i] == "log10" ? r.values[i] * std::log(10.0)
                      : r.scales[i] == "log"   ? r.values[i]
                                               : 1.0);
  const std::size_t q = slope.size();
  if (r.covariance.size() != q * q) return {};  // none computed (a fit with a parameter field)
  std::vector<double> covariance(q * q), correlation(q * q);
  for (std::size_t i = 0; i < q; ++i)
    for (std::size_t j = 0; j < q; ++j) {
      covariance[i * q + j] = slope[i] * r.covariance[i * q + j] * slope[j];
      correlation[i * q + j] = r.covariance[i * q + j] / std::sqrt(r.covariance[i * q + i] * r.covariance[j * q + j]);
    }
  return {covariance, correlation};
}

void write_hdf5(const FitReport& r, const std::filesystem::path& temporary, const std::string& path,
                const RunInfo& run) {
  Hdf5Handle h5 = detail::create_result_file(temporary, path, run);
  detail::write_double_attribute(h5, "objective", r.objective);
  detail::write_bool_attribute(h5, "converged", r.converged);
  detail::write_string_attribute(h5, "reason", r.reason);
  detail::write_string_attribute(h5, "model", r.model);
  detail::write_string_attribute(h5, "method", r.method);
  detail::write_string_attribute(h5, "gradient_mode", r.gradient_mode);

  Hdf5Handle parameters = detail::create_group(h5, "parameters");
  detail::write_string_array_attribute(parameters, "names", r.parameter_names);
  detail::write_string_array_attribute(parameters, "scales", r.scales);
  const hsize_t count = r.values.size();
  detail::write_double_dataset(parameters, "value", {count}, r.values.data());
  detail::write_double_dataset(parameters, "standard_error", {count}, r.standard_errors.data());
  detail::write_double_dataset(parameters, "lower", {count}, r.lower.data());
  detail::write_double_dataset(parameters, "upper", {count}, r.upper.data());
  detail::write_bool_dataset(parameters, "estimated", std::vector<bool>(r.estimated.begin(), r.estimated.end()));
  const hsize_t q = hsize_t(std::sqrt(double(r.covariance.size())) + 0.5);
  detail::write_double_dataset(parameters, "covariance_scaled", {q, q}, r.covariance.data());
  const auto [covariance, correlation] = linear_covariance(r);
  detail::write_double_dataset(parameters, "covariance", {q, q}, covariance.data());
  detail::write_double_dataset(parameters, "correlation", {q, q}, correlation.data());
  detail::write_string_array_attribute(parameters, "covariance_names", estimated_names(r));
  parameters.close();

  Hdf5Handle starts = detail::create_group(h5, "starts");
  std::vector<double> objective, first, last;
  std::vector<std::size_t> iterations, evaluations;
  std::vector<bool> converged;
  for (const StartResult& s : r.starts.starts) {
    objective.push_back(s.objective);
    iterations.push_back(s.iterations);
    evaluations.push_back(s.evaluations);
    converged.push_back(s.converged);
    first.insert(first.end(), s.start.begin(), s.start.end());
    last.insert(last.end(), s.x.begin(), s.x.end());
  }
  const hsize_t runs = objective.size();
  detail::write_double_dataset(starts, "objective", {runs}, objective.data());
  detail::write_count_dataset(starts, "iterations", {runs}, iterations.data());
  detail::write_count_dataset(starts, "evaluations", {runs}, evaluations.data());
  detail::write_bool_dataset(starts, "converged", converged);
  const hsize_t scaled = runs ? r.starts.starts.front().x.size() : 0;
  detail::write_double_dataset(starts, "start_scaled", {runs, scaled}, first.data());
  detail::write_double_dataset(starts, "end_scaled", {runs, scaled}, last.data());
  detail::write_count_attribute(starts, "best", r.starts.best + 1);  // counted from 1, as the log counts
  starts.close();

  if (!r.monitors.empty()) {  // per experiment, at the fit
    Hdf5Handle monitor = detail::create_group(h5, "monitor");
    std::vector<std::string> verdicts, watches;
    std::vector<double> rates, amplifications, horizons;
    for (const std::optional<GrowthReport>& m : r.monitors) {
      verdicts.push_back(m ? to_string(m->verdict) : "none");
      watches.push_back(m ? to_string(m->watched) : "none");
      rates.push_back(m ? m->growth_rate : NAN);
      amplifications.push_back(m ? m->amplification : NAN);
      horizons.push_back(m ? m->horizon : NAN);
    }
    const hsize_t experiments = verdicts.size();
    detail::write_string_array_attribute(monitor, "verdict", verdicts);
    detail::write_string_array_attribute(monitor, "watches", watches);
    detail::write_double_dataset(monitor, "growth_rate", {experiments}, rates.data());
    detail::write_double_dataset(monitor, "amplification", {experiments}, amplifications.data());
    detail::write_double_dataset(monitor, "horizon", {experiments}, horizons.data());
  }

  Hdf5Handle data = detail::create_group(h5, "measurements");
  std::vector<double> time, value;
  std::vector<std::size_t> experiment, observable;  // indices, from 0, into the two name lists
  for (const Measurement& m : r.measurements) {
    experiment.push_back(m.experiment);
    observable.push_back(m.observable);
    time.push_back(m.time);
    value.push_back(m.value);
  }
  const hsize_t rows = time.size();
  detail::write_string_array_attribute(data, "experiment_ids", r.experiment_ids);
  detail::write_string_array_attribute(data, "observable_names", r.observable_names);
  detail::write_count_dataset(data, "experiment", {rows}, experiment.data());
  detail::write_count_dataset(data, "observable", {rows}, observable.data());
  detail::write_double_dataset(data, "time", {rows}, time.data());
  detail::write_double_dataset(data, "value", {rows}, value.data());
  detail::write_double_dataset(data, "sigma", {rows}, r.sigmas.data());
  detail::write_double_dataset(data, "prediction", {rows}, r.predictions.data());
  if (!r.estimated_sigma.empty())
    detail::write_double_dataset(data, "estimated_sigma", {r.estimated_sigma.size()},
                                 r.estimated_sigma.data());
  data.close();

  Hdf5Handle trajectories = detail::create_group(h5, "trajectories");
  detail::write_string_array_attribute(trajectories, "state_names", r.state_names);
  detail::write_string_array_attribute(trajectories, "observable_names", r.observable_names);
  for (std::size_t e = 0; e < r.trajectories.size(); ++e) {
    const auto& t = r.trajectories[e];
    Hdf5Handle group = detail::create_group(trajectories, r.experiment_ids[e]);
    const hsize_t m = t.times.size();
    detail::write_double_dataset(group, "time", {m}, t.times.data());
    detail::write_double_dataset(group, "states", {m, r.state_names.size()}, t.states.data());
    detail::write_double_dataset(group, "observables", {m, r.observable_names.size()},
                                 t.observables.data());
    group.close();
  }
  trajectories.close();

  if (!r.parameter_fields.empty()) {
    Hdf5Handle fields = detail::create_group(h5, "parameter_fields");
    const std::vector<hsize_t> shape(r.grid_shape.begin(), r.grid_shape.end());
    for (const NamedField& field : r.parameter_fields)
      detail::write_double_dataset(fields, field.name, shape, field.values.data());
    fields.close();
  }
  h5.close();
}

}  // namespace

void write_fit_files(const FitReport& report, const std::string& dir, const RunInfo& run) {
  const std::filesystem::path folder(dir);
  const std::string h5 = (folder / "fit.h5").string();
  const std::string trajectories = (folder / "fit_trajectories.csv").string();
  const std::string residuals = (folder / "fit_residuals.csv").string();
  AtomicFile h5_file(h5), trajectories_file(trajectories), residuals_file(residuals);
  write_hdf5(report, h5_file.temporary(), h5, run);
  write_trajectories_csv(report, trajectories_file.temporary(), trajectories);
  write_residuals_csv(report, residuals_file.temporary(), residuals);
  h5_file.commit();
  trajectories_file.commit();
  residuals_file.commit();
}

}  // namespace backsweep
