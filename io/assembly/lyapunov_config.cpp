#include "io/assembly/lyapunov_config.hpp"

#include <utility>

namespace backsweep {

LyapunovConfig load_lyapunov_config(const std::string& path) {
  LyapunovSpec spec = lyapunov_spec(path);
  return {assemble_simulate(std::move(spec.simulate)), spec.options};
}

}  // namespace backsweep
