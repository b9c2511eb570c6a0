#include "apps/ensemble_gradient.hpp"

#include <chrono>
#include <cmath>
#include <filesystem>
#include <iostream>

#include <nlohmann/json.hpp>

#include "apps/config_gradient.hpp"
#include "apps/exit_codes.hpp"
#include "apps/json_number.hpp"
#include "apps/parallel_members.hpp"
#include "io/ensemble_output.hpp"

namespace backsweep::apps {

namespace {

constexpr std::size_t kMembersPrinted = 10;  // on stderr; the file and --json have all

EnsembleOutput collect(const GradientConfig& config, const std::vector<GradientResult<double>>& results) {
  const SimulateConfig& sim = config.simulate;
  const EnsembleConfig& ensemble = *config.ensemble;
  EnsembleOutput out;
  out.model = sim.model;
  out.mode = to_string(config.mode);
  out.backend = sim.backend;
  out.source = ensemble.source;
  out.members = results.size();
  for (const VariedValue& v : ensemble.varied) out.varied_names.push_back(v.name);
  for (std::size_t j : config.parameters) out.parameter_names.push_back(sim.parameter_names[j]);
  if (config.initial) out.state_names = sim.state_names;
  const bool monitored = config.mode == GradientMode::adjoint && !sim.method.is_sundials();
  for (std::size_t b = 0; b < results.size(); ++b) {
    const GradientResult<double>& r = results[b];
    const bool ok = r.ok();
    out.values.insert(out.values.end(), ensemble.members[b].begin(), ensemble.members[b].end());
    out.objective.push_back(ok ? r.value : NAN);
    out.status.push_back(std::size_t(r.status == IntegrateStatus::success && !ok ? IntegrateStatus::non_finite_state
                                                                                : r.status));
    out.steps.push_back(r.diagnostics.steps);
    for (std::size_t j : config.parameters) out.dJ_dp.push_back(ok ? r.dJ_dp[j] : NAN);
    if (config.initial)
      for (std::size_t i = 0; i < sim.state_names.size(); ++i) out.dJ_dy0.push_back(ok ? r.dJ_dy0[i] : NAN);
    if (monitored) {
      const auto& m = r.diagnostics.monitor;
      out.verdict.push_back(std::size_t(m ? m->verdict : GrowthVerdict::stable));
      out.growth_rate.push_back(m ? m->growth_rate : NAN);
      out.amplification.push_back(m ? m->amplification : NAN);
    }
  }
  return out;
}

nlohmann::json member_json(const EnsembleOutput& out, const GradientResult<double>& r, std::size_t b) {
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
  if (!r.ok()) j["message"] = r.message;
  if (!out.verdict.empty()) j["verdict"] = to_string(GrowthVerdict(out.verdict[b]));
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

  std::vector<GradientResult<double>> results(members);
  const auto start = std::chrono::steady_clock::now();
  for_each_member(members, sim.backend == "omp", [&](std::size_t b) {
    try {
      results[b] = config_gradient(config, monitor, values[b].y0, values[b].p);
    } catch (const std::exception& error) {  // a member may not throw: it fails
      results[b].status = IntegrateStatus::invalid_options;
      results[b].message = error.what();
    }
  });
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  if (const auto& shortfall = results.front().diagnostics.short_budget) {
    std::cerr << "error: " << config.checkpointing.shortfall_error(*shortfall).what() << '\n';
    return kExitBadInput;
  }
  std::size_t failed = 0, first_failure = members;
  for (std::size_t b = 0; b < members; ++b)
    if (!results[b].ok() && failed++ == 0) first_failure = b;
  if (failed == members) {
    const GradientResult<double>& r = results.front();
    std::cerr << "error: " << config_path << ": every member's gradient failed; member 1 ("
              << to_string(r.status) << "): " << r.message << '\n';
    return r.status == IntegrateStatus::invalid_options ? kExitBadInput : kExitRunFailed;
  }

  const EnsembleOutput out = collect(config, results);
  std::cerr << "gradient ensemble (" << out.mode << ", " << sim.method.name() << ", backend " << sim.backend
            << "): " << members << " members, " << failed << " failed, " << members / seconds
            << " gradients/s\n";
  for (std::size_t b = 0; b < std::min(members, kMembersPrinted); ++b) {
    std::cerr << "  member " << b + 1 << ": J = " << out.objective[b];
    for (std::size_t j = 0; j < out.parameter_names.size(); ++j)
      std::cerr << ", dJ/d" << out.parameter_names[j] << " = " << out.dJ_dp[b * out.parameter_names.size() + j];
    std::cerr << '\n';
  }
  if (members > kMembersPrinted) std::cerr << "  ... (all members in gradient.h5)\n";
  if (failed)
    std::cerr << "warning: " << failed << " of " << members << " members failed; member " << first_failure + 1
              << " (" << to_string(results[first_failure].status) << "): " << results[first_failure].message
              << '\n';
  const std::string path = (std::filesystem::path(sim.output_dir) / "gradient.h5").string();
  try {
    std::filesystem::create_directories(sim.output_dir);
    write_ensemble_hdf5(out, path);
  } catch (const std::exception& error) {
    std::cerr << "error: " << error.what() << '\n';
    return kExitRunFailed;
  }
  if (json) {
    nlohmann::json list = nlohmann::json::array();
    for (std::size_t b = 0; b < members; ++b) list.push_back(member_json(out, results[b], b));
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
