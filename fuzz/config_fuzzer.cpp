// libFuzzer target for the config front end: the TOML parser, every section reader and
// the expression compiler, the kernel generators (the CPU's of equations on a grid, run
// by the program, whose compiler is /bin/false here so each input stays quick and the
// interpreter runs; the CUDA and ODE sources, generated only), then one right-hand side
// and one VJP of a model the config defines. A config error (exit 2
// in the program) is an expected outcome; a crash, a sanitizer report, a hang or any other
// exception is a finding. scripts/fuzz.sh runs it.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "io/config/config_error.hpp"
#include "io/assembly/fit_config.hpp"
#include "io/assembly/gradient_config.hpp"
#include "models/cuda_kernel_source.hpp"
#include "models/ode_kernel_source.hpp"

namespace {

const std::string& config_path() {  // one file a process, rewritten for each input
  static const std::string path = "/tmp/backsweep_fuzz_" + std::to_string(::getpid()) + ".toml";
  return path;
}

// One RHS and one VJP at the initial state, where the model is small enough to be quick.
void evaluate(const backsweep::SimulateConfig& config) {
  const auto& model = config.expression_model;
  if (!model || model->state_size() > 4096 || config.initial_state.size() != model->state_size()) return;
  if (const backsweep::FieldEquations* fields = model->fields())
    (void)backsweep::cuda_field_kernel_source(*fields, model->program());
  else
    (void)backsweep::ode_kernel_source(model->program(), model->state_size(), model->param_size());
  const std::size_t n = model->state_size();
  std::vector<double> p = config.parameters, dydt(n), lambda(n, 1.0), vjp_y(n), vjp_p(model->param_size());
  p.resize(model->param_size());
  (*model)(config.integrate.t0, config.initial_state.data(), p.data(), dydt.data());
  backsweep::ExpressionModel::Tape<double> tape;
  model->vjp(tape, config.integrate.t0, config.initial_state.data(), p.data(), lambda.data(), vjp_y.data(),
             vjp_p.data());
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  ::setenv("BACKSWEEP_CXX", "/bin/false", 1);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::ofstream(config_path(), std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(data),
                                                                         std::streamsize(size));
  try {
    evaluate(backsweep::load_gradient_config(config_path()).simulate);
  } catch (const backsweep::ConfigError&) {
  }
  try {
    backsweep::load_fit_config(config_path());
  } catch (const backsweep::ConfigError&) {
  }
  return 0;
}
