#pragma once
// What a shadowing run is told (adjoint/shadowing.hpp): how many unstable directions, how
// the run is cut into segments, and how long it runs onto the attractor first.
#include <cstddef>

namespace backsweep {

struct ShadowingOptions {
  std::size_t unstable = 1;      // m: directions with a positive Lyapunov exponent
  std::size_t segments = 100;    // K
  double segment_length = 1.0;   // dT, a multiple of the step
  double t0 = 0.0;
  double spin_up = 10.0;         // time run from t0 before the first segment (onto the attractor)
  double step = 0.005;           // the method's fixed step
  std::size_t batches = 8;       // of consecutive segments, for the error estimate
  // Autonomous systems have a neutral direction, f: it is projected out. A system forced
  // in time has none.
  bool project_flow = true;
};

}  // namespace backsweep
