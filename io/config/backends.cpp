#include "io/config/backends.hpp"

#include <array>
#include <vector>

#include "io/config/detail/joined.hpp"

namespace backsweep {

namespace {

constexpr bool kOpenMP = BACKSWEEP_OPENMP_BUILT;

// The Thrust backends run the hand-written grid kernels' device forms (gpu/) with the
// explicit steppers; everything else runs on the cpu (issue: config models on devices).
const std::array<BackendEntry, 3> kBackends{{
    {"cpu", "the CPU algebra (vectorised loops on one core); every model and method", true, "", true, true, true,
     true, false},
    {"omp", "Thrust's OpenMP system; the hand-written grid kernels' device forms", kOpenMP,
     "this build has no OpenMP backend (configure with -DBACKSWEEP_OPENMP=ON)", false, false, true, false, true},
    {"cuda", "Thrust on CUDA; the hand-written grid kernels' device forms", false,
     "this program is built without CUDA (CUDA is reached from C++, gpu/)", false, false, true, false, true},
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

std::span<const BackendEntry> backends() { return kBackends; }

const BackendEntry* find_backend(std::string_view name) {
  for (const BackendEntry& entry : kBackends)
    if (entry.name == name) return &entry;
  return nullptr;
}

std::string backend_refusal(std::string_view name, ModelKind kind, std::string_view model, bool explicit_method,
                            std::string_view method, bool parallel_runs) {
  std::vector<std::string_view> known, able, parallel{"cpu"};
  for (const BackendEntry& entry : kBackends) {
    known.push_back(entry.name);
    if (entry.built && entry.runs(kind, explicit_method)) able.push_back(entry.name);
    if (entry.built && entry.parallel_runs) parallel.push_back(entry.name);
  }
  const BackendEntry* backend = find_backend(name);
  if (!backend) return "unknown backend '" + std::string(name) + "' (known: " + detail::joined(known) + ")";
  const std::string quoted = "'" + std::string(name) + "': ";
  const std::string where = "'" + std::string(model) + "' with '" + std::string(method) + "' can run on the " +
                            detail::joined(able) + " backend" + (able.size() > 1 ? "s" : "");
  if (!backend->built) return quoted + std::string(backend->missing) + "; " + where;
  if (parallel_runs && backend->parallel_runs) return "";
  if (backend->runs(kind, explicit_method)) return "";
  std::string or_list;
  for (std::size_t i = 0; i < parallel.size(); ++i) or_list += (i == 0 ? "" : i + 1 == parallel.size() ? " or " : ", ") + std::string(parallel[i]);
  return quoted + where + "; [ensemble] members and a fit's starts on " + or_list;
}

}  // namespace backsweep
