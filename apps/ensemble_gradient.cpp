#include "apps/ensemble_gradient.hpp"

#include <chrono>
#include <iostream>
#include <optional>
#include <stdexcept>

#include "apps/config_gradient.hpp"
#include "apps/ensemble_report.hpp"
#include "apps/error_report.hpp"
#include "apps/exit_codes.hpp"
#include "apps/parallel_members.hpp"
#include "apps/command_io.hpp"
#include "apps/run_record.hpp"
#include "io/config/backends.hpp"
#include "platform/byte_pack.hpp"
#include "platform/output_set.hpp"
#include "platform/rank_exchange.hpp"
#include "platform/ranks.hpp"

namespace backsweep::apps {

namespace {

// The members `here` solved (rows of `out` and their messages) onto every rank, and member
// 1's refusal from the rank that solved it.
void share_members(const std::vector<std::size_t>& here, EnsembleOutput& out, std::vector<std::string>& messages,
                   std::optional<OptionRefusal>& refused) {
  const std::size_t np = out.parameter_names.size(), n = out.state_names.size();
  const bool monitored = !out.verdict.empty();
  BytePacker packed;
  packed << refused.has_value() << (refused ? refused->key : "") << (refused ? refused->problem : "");
  for (std::size_t b : here) {
    packed << b << out.objective[b] << out.status[b] << out.steps[b] << messages[b];
    for (std::size_t k = 0; k < np; ++k) packed << out.dJ_dp[b * np + k];
    for (std::size_t i = 0; i < n; ++i) packed << out.dJ_dy0[b * n + i];
    if (monitored) packed << out.verdict[b] << out.growth_rate[b] << out.amplification[b];
  }
  const std::vector<std::string> parts = ranks::exchange(packed.bytes());
  for (std::size_t rank = 0; rank < parts.size(); ++rank) {
    if (int(rank) == ranks::rank()) continue;
    ByteUnpacker in(parts[rank]);
    bool has_refusal = false;
    OptionRefusal refusal;
    in >> has_refusal >> refusal.key >> refusal.problem;
    if (has_refusal) refused = refusal;
    while (!in.done()) {
      std::size_t b = 0;
      in >> b;
      if (b >= messages.size()) throw std::length_error("an ensemble member out of range");
      in >> out.objective[b] >> out.status[b] >> out.steps[b] >> messages[b];
      for (std::size_t k = 0; k < np; ++k) in >> out.dJ_dp[b * np + k];
      for (std::size_t i = 0; i < n; ++i) in >> out.dJ_dy0[b * n + i];
      if (monitored) in >> out.verdict[b] >> out.growth_rate[b] >> out.amplification[b];
    }
  }
}

}  // namespace

int run_ensemble_gradient(const GradientConfig& config, const std::string& config_path,
                          const MonitorOptions& monitor, CommandIO& io) {
  const SimulateConfig& sim = config.simulate;
  const EnsembleConfig& ensemble = *config.ensemble;
  const std::size_t members = ensemble.members.size();
  std::vector<MemberValues> values;
  for (std::size_t b = 0; b < members; ++b) values.push_back(member_values(sim, ensemble, b));

  EnsembleOutput out = ensemble_record(config);
  std::vector<std::string> messages(members);
  std::optional<OptionRefusal> refused;  // the same for every member: member 1's
  // With an mpirun's ranks, member b is solved on rank b mod their count.
  std::vector<std::size_t> here;
  for (std::size_t b = 0; b < members; ++b)
    if (b % std::size_t(ranks::count()) == std::size_t(ranks::rank())) here.push_back(b);
  if (ranks::count() > 1) io.split = "members";
  const auto start = std::chrono::steady_clock::now();
  for_each_member(here.size(), find_backend(sim.backend)->parallel_runs, [&](std::size_t j) {
    const std::size_t b = here[j];
    GradientResult<double> r;
    try {  // a member may not throw: it fails
      r = config_gradient(config, monitor, values[b].y0, values[b].p);
    } catch (const std::exception& error) {
      r.status = IntegrateStatus::invalid_options;
      r.message = error.what();
    }
    record_member(config, r, b, out);           // into rows sized before: no allocation
    if (!r.ok()) messages[b] = std::move(r.message);  // nor here
    if (b == 0) refused = r.diagnostics.refused;
  });
  if (ranks::count() > 1) share_members(here, out, messages, refused);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  if (refused) {
    report_error(io.error, config.checkpointing.refusal_error(*refused));
    return kExitBadInput;
  }
  std::size_t failed = 0, first_failure = members;
  for (std::size_t b = 0; b < members; ++b)
    if (out.status[b] != 0 && failed++ == 0) first_failure = b;
  const auto status_name = [&](std::size_t b) { return to_string(IntegrateStatus(out.status[b])); };
  for (std::size_t b = 0; b < members; ++b)
    if (out.status[b] != 0 && messages[b].empty()) messages[b] = "non-finite value";
  if (failed == members) {
    report_error(io.error, config_path, ": every member's gradient failed; member 1 (", status_name(0), "): ",
                 messages[0]);
    return IntegrateStatus(out.status[0]) == IntegrateStatus::invalid_options ? kExitBadInput : kExitRunFailed;
  }

  print_ensemble(out, std::string(sim.method.name()), failed, seconds, io.text());
  if (failed)
    std::cerr << "warning: " << failed << " of " << members << " members failed; member " << first_failure + 1
              << " (" << status_name(first_failure) << "): " << messages[first_failure] << '\n';
  warn_verdicts(out, std::cerr);
  if (io.writes_outputs()) try {
    OutputSet outputs(sim.output_dir);
    write_ensemble_hdf5(out, (outputs.staging() / "gradient.h5").string(), io.run);
    commit_outputs(outputs, "gradient", io.run);
  } catch (const std::exception& error) {
    report_error(io.error, error.what());
    return kExitRunFailed;
  }
  io.finish(ensemble_json(out, messages, failed, seconds));
  return kExitOk;
}

}  // namespace backsweep::apps
