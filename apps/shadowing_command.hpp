#pragma once
// `gradient` with gradient.mode = "shadowing": the derivative of a long-time average by
// NILSS (adjoint/shadowing.hpp), the unstable directions counted from the Lyapunov
// spectrum unless the config gives them; the result on stdout (or --json) and in
// gradient.h5.
#include <string>

#include "apps/command_io.hpp"
#include "io/assembly/gradient_config.hpp"

namespace backsweep::apps {

int run_shadowing_gradient(const GradientConfig& config, const std::string& config_path, CommandIO& io);

}  // namespace backsweep::apps
