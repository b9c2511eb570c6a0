#pragma once
#include <string>

namespace backsweep::apps {

// `backsweep lyapunov CONFIG [--json]`: the leading Lyapunov exponents of the config's
// model, their standard errors, the Kaplan-Yorke dimension and the convergence history.
// Returns the process exit code.
int run_lyapunov(const std::string& config_path, bool json);

}  // namespace backsweep::apps
