#pragma once
// What `lyapunov` writes: <dir>/lyapunov.h5 (exponents, standard errors, Kaplan-Yorke
// dimension, convergence history) and <dir>/lyapunov_history.csv (running estimates
// against averaging time), both complete before either is renamed into place.
#include <string>

#include "adjoint/lyapunov_spectrum.hpp"
#include "platform/run_info.hpp"

namespace backsweep {

struct LyapunovOutput {
  std::string model, method;
  LyapunovOptions options;
  LyapunovResult result;
};

void write_lyapunov_files(const LyapunovOutput& output, const std::string& dir, const RunInfo& run);

}  // namespace backsweep
