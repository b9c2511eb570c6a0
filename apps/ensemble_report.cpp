#include "apps/ensemble_report.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "apps/json_number.hpp"

namespace backsweep::apps {

namespace {

constexpr std::size_t kMembersPrinted = 10;  // printed; the file and --json have all

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

EnsembleOutput ensemble_record(const GradientConfig& config) {
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
  out.verdict.resize(members);  // the monitor's: every mode has one
  out.growth_rate.resize(members);
  out.amplification.resize(members);
  return out;
}

void record_member(const GradientConfig& config, const GradientResult<double>& r, std::size_t b, EnsembleOutput& out) {
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

void print_ensemble(const EnsembleOutput& out, const std::string& method, std::size_t failed, double seconds,
                    std::ostream& stream) {
  const std::size_t members = out.objective.size();
  stream << "gradient ensemble (" << out.mode << ", " << method << ", backend " << out.backend << "): " << members
         << " members, " << failed << " failed, " << members / seconds << " gradients/s\n";
  for (std::size_t b = 0; b < std::min(members, kMembersPrinted); ++b) {
    stream << "  member " << b + 1 << ": J = " << out.objective[b];
    for (std::size_t j = 0; j < out.parameter_names.size(); ++j)
      stream << ", dJ/d" << out.parameter_names[j] << " = " << out.dJ_dp[b * out.parameter_names.size() + j];
    stream << '\n';
  }
  if (members > kMembersPrinted) stream << "  ... (all members in gradient.h5)\n";
}

std::map<std::string, std::size_t> verdict_counts(const EnsembleOutput& out) {
  std::map<std::string, std::size_t> counts;
  for (std::size_t v : out.verdict)
    if (v != kNoVerdict) ++counts[to_string(GrowthVerdict(v))];
  return counts;
}

void warn_verdicts(const EnsembleOutput& out, std::ostream& stream) {
  const std::size_t members = out.verdict.size();
  for (std::size_t b = 0; b < members; ++b) {
    if (out.verdict[b] == kNoVerdict || GrowthVerdict(out.verdict[b]) == GrowthVerdict::stable) continue;
    const std::map<std::string, std::size_t> counts = verdict_counts(out);
    stream << "warning: the growth monitor's verdicts over " << members << " members:";
    for (const auto& [verdict, count] : counts) stream << ' ' << verdict << ' ' << count;
    stream << "; member " << b + 1 << " first (" << to_string(GrowthVerdict(out.verdict[b])) << ", growth rate "
           << out.growth_rate[b] << ", amplification " << out.amplification[b]
           << "): a member's gradient is only as trustworthy as its verdict (see the members in --json and "
              "/monitor in gradient.h5)\n";
    return;
  }
}

nlohmann::json ensemble_json(const EnsembleOutput& out, const std::vector<std::string>& messages, std::size_t failed,
                             double seconds) {
  const std::size_t members = out.objective.size();
  nlohmann::json list = nlohmann::json::array();
  for (std::size_t b = 0; b < members; ++b) list.push_back(member_json(out, messages[b], b));
  return {{"ensemble", {{"members", members},
                        {"failed", failed},
                        {"backend", out.backend},
                        {"source", out.source},
                        {"seconds", seconds},
                        {"gradients_per_second", members / seconds},
                        {"verdicts", verdict_counts(out)}}},
          {"members", list}};
}

}  // namespace backsweep::apps
