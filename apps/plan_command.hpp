#pragma once
#include <cstddef>
#include <string>

#include "apps/command_io.hpp"

namespace backsweep::apps {

struct PlanRequest {
  std::size_t steps = 0, slots = 0, disk_slots = 0, state_bytes = 8;
  std::string schedule = "auto";  // auto (two_level with disk slots, else revolve) | revolve | online | two_level
};

// `backsweep plan`: a checkpoint schedule's counts, per level, counted by running it.
int run_plan(const PlanRequest& request, CommandIO& io);

}  // namespace backsweep::apps
