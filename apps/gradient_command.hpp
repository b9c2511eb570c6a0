#pragma once
#include <string>

namespace backsweep::apps {

// `backsweep gradient CONFIG [--json]`: the objective of the config and its gradient with
// respect to the parameters (and the initial state), by the discrete adjoint or the
// forward tangent. Returns the process exit code.
int run_gradient(const std::string& config_path, bool json);

}  // namespace backsweep::apps
