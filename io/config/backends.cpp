#include "io/config/backends.hpp"

#include <array>
#include <string>
#include <vector>

#include "io/config/detail/joined.hpp"
#include "models/builtin/grid_kernels.hpp"

namespace backsweep {

namespace {

constexpr bool kOpenMP = BACKSWEEP_OPENMP_BUILT;
constexpr bool kCuda = BACKSWEEP_CUDA_BUILT;

// The Thrust backends run the hand-written grid kernels' device forms (gpu/) with the
// explicit steppers, and equations on a grid compiled: omp on OpenMP threads, cuda as
// CUDA kernels built at run time. omp runs an ODE's equations too (its algebra's loops
// on the threads where the state is long); everything else runs on the cpu.
const std::array<BackendEntry, 3> kBackends{{
    {.name = "cpu",
     .built = true,
     .runs_builtin_ode = true,
     .runs_equations = true,
     .runs_grid_kernel = true,
     .implicit_methods = true,
     .events = true,
     .shadowing = true,
     .splits_grid = true,
     .simulates = true,
     .tangent_grid_kernels = true,
     .tangent_equations = true,
     .interpreted = Interpreted::anywhere},
    {.name = "omp",
     .built = kOpenMP,
     .algebra = BackendAlgebra::thrust_omp,
     .missing = "this build has no OpenMP backend (configure with -DBACKSWEEP_OPENMP=ON)",
     .runs_equations = true,  // on a grid as compiled kernels on OpenMP threads; ODEs too
     .runs_grid_kernel = true,
     .parallel_runs = true,
     .simulates = true,
     .tangent_equations = true,  // on the host's algebra
     .threaded_kernels = true,
     .interpreted = Interpreted::off_grid},
    {.name = "cuda",
     .built = kCuda,
     .algebra = BackendAlgebra::thrust_cuda,
     .missing = "this program is built without CUDA (configure with -DBACKSWEEP_CUDA=ON, with CUDA 12 or later)",
     .runs_equations = true,  // on a grid, as CUDA kernels built at run time
     .runs_grid_kernel = true},
}};

}  // namespace

bool BackendEntry::runs(ModelKind kind, bool explicit_method) const {
  if (!explicit_method && !implicit_methods) return false;
  switch (kind) {
    case ModelKind::builtin_ode: return runs_builtin_ode;
    case ModelKind::equations: return runs_equations;
    case ModelKind::grid_kernel: return runs_grid_kernel;
  }
  return false;
}

bool BackendEntry::tangent(ModelKind kind) const {
  return kind == ModelKind::grid_kernel ? tangent_grid_kernels : tangent_equations;
}

std::span<const BackendEntry> backends() { return kBackends; }
const BackendEntry& default_backend() { return kBackends.front(); }

bool backend_has(std::string_view name, bool BackendEntry::*capability) {
  const BackendEntry* entry = find_backend(name);
  return entry && entry->*capability;
}

const BackendEntry* find_backend(std::string_view name) {
  for (const BackendEntry& entry : kBackends)
    if (entry.name == name) return &entry;
  return nullptr;
}

namespace {

// "a, b or c"
std::string alternatives(const std::vector<std::string_view>& names) {
  std::string text;
  for (std::size_t i = 0; i < names.size(); ++i)
    text += std::string(i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + std::string(names[i]);
  return text;
}

// "omp runs the hand-written grid models (gray_scott, ...) with explicit methods"
std::string what_runs(const BackendEntry& backend) {
  std::vector<std::string> kinds;
  if (backend.runs_builtin_ode) kinds.push_back("the built-in ODE models");
  if (backend.runs_equations) kinds.push_back("models defined by equations");
  if (backend.runs_grid_kernel)
    kinds.push_back("the hand-written grid models (" + detail::joined(models::grid_kernel_names) + ")");
  return std::string(backend.name) + " runs " + detail::joined(kinds) +
         (backend.implicit_methods ? "" : " with explicit methods");
}

}  // namespace

std::string backend_refusal(std::string_view name, ModelKind kind, std::string_view model, bool explicit_method,
                            std::string_view method, bool parallel_runs) {
  std::vector<std::string_view> known, able, parallel;
  for (const BackendEntry& entry : kBackends) {
    known.push_back(entry.name);
    if (entry.built && entry.runs(kind, explicit_method)) able.push_back(entry.name);
    if (entry.built && (entry.parallel_runs || entry.name == "cpu")) parallel.push_back(entry.name);
  }
  const BackendEntry* backend = find_backend(name);
  if (!backend) return "unknown backend '" + std::string(name) + "' (known: " + detail::joined(known) + ")";
  const std::string where = "model '" + std::string(model) + "' with '" + std::string(method) + "' can run on the " +
                            alternatives(able) + " backend" + (able.size() > 1 ? "s" : "");
  std::string quoted = "'";  // appended: GCC 12 misreports "'" + string (-Wrestrict)
  quoted.append(name).append("': ");
  if (!backend->built) return quoted + std::string(backend->missing) + "; " + where;
  if ((parallel_runs && backend->parallel_runs) || backend->runs(kind, explicit_method)) return "";
  return quoted + where + "; " + what_runs(*backend) + ", and [ensemble] members and a fit's starts on " +
         alternatives(parallel);
}

}  // namespace backsweep
