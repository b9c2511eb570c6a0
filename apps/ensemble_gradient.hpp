#pragma once
// `gradient` with [ensemble]: a gradient a member, members in order (backend cpu) or in
// parallel (omp). A member that fails is recorded with its status and does not stop the
// others; the run fails (exit 1) only when every member fails.
#include <string>

#include "apps/command_io.hpp"
#include "io/assembly/gradient_config.hpp"

namespace backsweep::apps {

int run_ensemble_gradient(const GradientConfig& config, const std::string& config_path,
                          const MonitorOptions& monitor, CommandIO& io);

}  // namespace backsweep::apps
