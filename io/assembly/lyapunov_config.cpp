#include "io/assembly/lyapunov_config.hpp"

#include <utility>

namespace backsweep {

LyapunovConfig lyapunov_config(ConfigFile file) {
  LyapunovSpec spec = lyapunov_spec(std::move(file));
  return {assemble_simulate(std::move(spec.simulate)), spec.options};
}

}  // namespace backsweep
