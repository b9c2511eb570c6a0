#include "apps/ensemble_gradient.hpp"

#include <chrono>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <optional>

#include <nlohmann/json.hpp>

#include "apps/config_gradient.hpp"
#include "apps/error_report.hpp"
#include "apps/exit_codes.hpp"
#include "apps/json_number.hpp"
#include "apps/results_stream.hpp"
#include "apps/run_record.hpp"
#include "apps/parallel_members.hpp"
#include "io/outputs/ensemble_output.hpp"

namespace backsweep::apps {

namespace {

constexpr std::size_t kMembersPrinted = 10;  // printed; the file and --json have all

// The output's names and its member rows, sized; record() fills a member's row.
EnsembleOutput prepare(const GradientConfig& config) {
  const SimulateConfig& sim = config.simulate;
  const EnsembleConfig& ensemble = *config.ensemble;
  EnsembleOutput out;
  out.model = sim.model;
  out.mode = to_string(config.mode);
  out.backend = sim.backend;
  out.source = ensemble.source;
  const std::size_t members = ensemble.members.size();
  for (const VariedValue& v : ensemble.varied) out.varied_names.push_back(v.name);
  for (const auto& row : ensemble.members) out.values.insert(out.values.end(), row.begin(), row.end());
  for (std::size_t j : config.parameters) out.parameter_names.push_back(sim.parameter_names[j]);
  if (config.initial) out.state_names = sim.state_names;
  out.objective.resize(members);
  out.status.resize(members);
  out.steps.resize(members);
  out.dJ_dp.resize(members * out.parameter_names.size());
  out.dJ_dy0.resize(members * out.state_names.size());
  if (config.mode == GradientMode::adjoint && sim.method.has_stepper()) {  // the monitor's
    out.verdict.resize(members);
    out.growth_rate.resize(members);
    out.amplification.resize(members);
  }
  return out;
}

// Member b's row: only what gradient.h5 holds is kept of a member's result.
void record(const GradientConfig& config, const GradientResult<double>& r, std::size_t b, EnsembleOutput& out) {
  const bool ok = r.ok();
  out.objective[b] = ok ? r.value : NAN;
  out.status[b] = std::size_t(r.status == IntegrateStatus::success && !ok ? IntegrateStatus::non_finite_state : r.status);
  out.steps[b] = r.diagnostics.steps;
  const std::size_t np = out.parameter_names.size(), n = out.state_names.size();
  for (std::size_t k = 0; k < np; ++k) out.dJ_dp[b * np + k] = ok ? r.dJ_dp[config.parameters[k]] : NAN;
  for (std::size_t i = 0; i < n; ++i) out.dJ_dy0[b * n + i] = ok ? r.dJ_dy0[i] : NAN;
  if (!out.verdict.empty()) {
    const auto& m = r.diagnostics.monitor;
    out.verdict[b] = m ? std::size_t(m->verdict) : kNoVerdict;
    out.growth_rate[b] = m ? m->growth_rate : NAN;
    out.amplification[b] = m ? m->amplification : NAN;
  }
}

nlohmann::json member_json(const EnsembleOutput& out, const std::string& message, std::size_t b) {
  nlohmann::json values = nlohmann::json::object(), parameters = nlohmann::json::object(),
                 initial = nlohmann::json::object();
  for (std::size_t k = 0; k < out.varied_names.size(); ++k)
    values[out.varied_names[k]] = out.values[b * out.varied_names.size() + k];
  for (std::size_t j = 0; j < out.parameter_names.size(); ++j)
    parameters[out.parameter_names[j]] = finite_or_null(out.dJ_dp[b * out.parameter_names.size() + j]);
  for (std::size_t i = 0; i < out.state_names.size(); ++i)
    initial[out.state_names[i]] = finite_or_null(out.dJ_dy0[b * out.state_names.size() + i]);
  nlohmann::json gradient = {{"parameters", parameters}};
  if (!out.state_names.empty()) gradient["initial"] = initial;
  nlohmann::json j = {{"values", values},
                      {"objective", finite_or_null(out.objective[b])},
                      {"gradient", gradient},
                      {"status", to_string(IntegrateStatus(out.status[b]))},
                      {"steps", out.steps[b]}};
  if (out.status[b] != 0) j["message"] = message;
  if (!out.verdict.empty())
    j["verdict"] = out.verdict[b] == kNoVerdict ? nlohmann::json() : to_string(GrowthVerdict(out.verdict[b]));
  return j;
}

}  // namespace

int run_ensemble_gradient(const GradientConfig& config, const std::string& config_path,
                          const MonitorOptions& monitor, bool json) {
  const SimulateConfig& sim = config.simulate;
  const EnsembleConfig& ensemble = *config.ensemble;
  const std::size_t members = ensemble.members.size();
  std::vector<MemberValues> values;
  for (std::size_t b = 0; b < members; ++b) values.push_back(member_values(sim, ensemble, b));

  EnsembleOutput out = prepare(config);
  std::vector<std::string> messages(members);
  std::optional<OptionRefusal> refused;  // the same for every member: member 1's
  const auto start = std::chrono::steady_clock::now();
  for_each_member(members, sim.backend == "omp", [&](std::size_t b) {
    GradientResult<double> r;
    try {  // a member may not throw: it fails
      r = config_gradient(config, monitor, values[b].y0, values[b].p);
    } catch (const std::exception& error) {
      r.status = IntegrateStatus::invalid_options;
      r.message = error.what();
    }
    record(config, r, b, out);                  // into rows sized before: no allocation
    if (!r.ok()) messages[b] = std::move(r.message);  // nor here
    if (b == 0) refused = r.diagnostics.refused;
  });
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  if (refused) {
    report_error(config.checkpointing.refusal_error(*refused));
    return kExitBadInput;
  }
  std::size_t failed = 0, first_failure = members;
  for (std::size_t b = 0; b < members; ++b)
    if (out.status[b] != 0 && failed++ == 0) first_failure = b;
  const auto status_name = [&](std::size_t b) { return to_string(IntegrateStatus(out.status[b])); };
  for (std::size_t b = 0; b < members; ++b)
    if (out.status[b] != 0 && messages[b].empty()) messages[b] = "non-finite value";
  if (failed == members) {
    report_error(config_path, ": every member's gradient failed; member 1 (", status_name(0), "): ", messages[0]);
    return IntegrateStatus(out.status[0]) == IntegrateStatus::invalid_options ? kExitBadInput : kExitRunFailed;
  }

  results_stream(json) << "gradient ensemble (" << out.mode << ", " << sim.method.name() << ", backend " << sim.backend
                       << "): " << members << " members, " << failed << " failed, " << members / seconds
                       << " gradients/s\n";
  for (std::size_t b = 0; b < std::min(members, kMembersPrinted); ++b) {
    results_stream(json) << "  member " << b + 1 << ": J = " << out.objective[b];
    for (std::size_t j = 0; j < out.parameter_names.size(); ++j)
      results_stream(json) << ", dJ/d" << out.parameter_names[j] << " = "
                           << out.dJ_dp[b * out.parameter_names.size() + j];
    results_stream(json) << '\n';
  }
  if (members > kMembersPrinted) results_stream(json) << "  ... (all members in gradient.h5)\n";
  if (failed)
    std::cerr << "warning: " << failed << " of " << members << " members failed; member " << first_failure + 1
              << " (" << status_name(first_failure) << "): " << messages[first_failure] << '\n';
  try {
    OutputSet outputs(sim.output_dir);
    write_ensemble_hdf5(out, (outputs.staging() / "gradient.h5").string());
    commit_outputs(outputs, "gradient");
  } catch (const std::exception& error) {
    report_error(error.what());
    return kExitRunFailed;
  }
  if (json) {
    nlohmann::json list = nlohmann::json::array();
    for (std::size_t b = 0; b < members; ++b) list.push_back(member_json(out, messages[b], b));
    std::cout << nlohmann::json{{"ensemble", {{"members", members},
                                              {"failed", failed},
                                              {"backend", sim.backend},
                                              {"source", ensemble.source},
                                              {"seconds", seconds},
                                              {"gradients_per_second", members / seconds}}},
                                {"members", list}}
                     .dump()
              << '\n';
  }
  return kExitOk;
}

}  // namespace backsweep::apps
