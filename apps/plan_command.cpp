#include "apps/plan_command.hpp"

#include <algorithm>
#include <iostream>

#include <nlohmann/json.hpp>

#include "adjoint/checkpoint_schedule.hpp"
#include "adjoint/schedule_executor.hpp"
#include "apps/error_report.hpp"
#include "apps/exit_codes.hpp"
#include "apps/command_io.hpp"

namespace backsweep::apps {

namespace {

// The schedule is run to count it, so its length is bounded first: revolve reverses N
// steps with s slots in about t N forward steps, t the least with C(s + t, t) >= N.
constexpr double kMaxForwardSteps = 1e10;

bool too_long(std::size_t steps, std::size_t slots) {
  double binomial = 1.0;  // C(s + t, t)
  for (double t = 1;; ++t) {
    binomial = binomial * (double(slots) + t) / t;
    if (binomial >= double(steps)) return false;
    if (t * double(steps) > kMaxForwardSteps) return true;
  }
}

}  // namespace

int run_plan(const PlanRequest& request, CommandIO& io) {
  if (request.steps == 0 || request.slots == 0) {
    report_error(io.error, "--steps and --slots must be at least 1");
    return kExitBadInput;
  }
  // Numbers from the command line are not trusted: a schedule holds O(slots) state.
  if (request.slots > (std::size_t(1) << 32) || request.disk_slots > (std::size_t(1) << 32)) {
    report_error(io.error, "--slots and --disk-slots must be at most 2^32");
    return kExitBadInput;
  }
  if (too_long(request.steps, request.slots + request.disk_slots)) {
    report_error(io.error, request.steps, " steps with ", request.slots + request.disk_slots,
                 " slots take more than 10^10 forward steps to plan: give more slots");
    return kExitBadInput;
  }
  // More slots than states are never used: a schedule is not built for them.
  const std::size_t slots = std::min(request.slots, request.steps + 1);
  const std::size_t disk_slots = std::min(request.disk_slots, request.steps + 1);
  std::string name = request.schedule;
  if (name == "auto") name = request.disk_slots ? "two_level" : "revolve";
  const std::unique_ptr<CheckpointSchedule> schedule =
      name == "revolve"     ? revolve_schedule(request.steps, slots)
      : name == "online"    ? online_schedule(slots)
      : name == "two_level" ? two_level_schedule(request.steps, slots, disk_slots)
                            : nullptr;
  if (!schedule) {
    report_error(io.error, "--schedule must be auto, revolve, online or two_level");
    return kExitBadInput;
  }
  const ScheduleCounts counts = count_schedule(*schedule, request.steps);
  const double ratio = double(counts.forward_steps) / double(request.steps);
  const std::uint64_t minimum = revolve_min_recomputations(request.steps, slots);
  io.text() << name << ": " << request.steps << " steps with " << request.slots
                       << " memory slots and " << request.disk_slots << " disk slots: "
                       << counts.forward_steps << " forward steps (" << ratio
                       << " forward sweeps; revolve with the memory slots alone: " << minimum << "), "
                       << counts.recomputed_steps << " of them taken again\n";
  nlohmann::json levels = nlohmann::json::object();
  for (Level level : {Level::memory, Level::disk}) {
    const auto l = std::size_t(level);
    io.text() << "  " << to_string(level) << ": peak " << counts.peak_level_slots[l] << " slots, "
                         << counts.writes[l] << " writes, " << counts.reads[l] << " reads ("
                         << counts.writes[l] * request.state_bytes << " and "
                         << counts.reads[l] * request.state_bytes << " bytes)\n";
    levels[to_string(level)] = {{"peak_slots", counts.peak_level_slots[l]},
                                {"writes", counts.writes[l]},
                                {"reads", counts.reads[l]},
                                {"bytes_written", counts.writes[l] * request.state_bytes},
                                {"bytes_read", counts.reads[l] * request.state_bytes}};
  }
  if (io.json)
    std::cout << nlohmann::json{{"schedule", name},
                                {"steps", request.steps},
                                {"slots", request.slots},
                                {"disk_slots", request.disk_slots},
                                {"forward_steps", counts.forward_steps},
                                {"recomputed_steps", counts.recomputed_steps},
                                {"peak_slots", counts.peak_slots},
                                {"ratio", ratio},
                                {"levels", levels}}
                     .dump()
              << '\n';
  return kExitOk;
}

}  // namespace backsweep::apps
