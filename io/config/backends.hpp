#pragma once
// The backends a config can name in solver.backend, as data: whether this program has
// each (an algebra and the model adapters built for it), and what it runs.
// The config readers ask an entry what it can do, and the commands dispatch on its
// algebra: adding a backend is a row here, its algebra (solvers/, gpu/) and its
// dispatch in apps/ (docs/architecture.md, "A new backend").
#include <span>
#include <string>
#include <string_view>

namespace backsweep {

// The kinds of model a config can name (io/assembly/visit_model.hpp).
enum class ModelKind { builtin_ode, equations, grid_kernel };

// The algebra a backend's gradients sweep on: the host's vectors, or Thrust's on OpenMP
// threads or on a CUDA device (gpu/); the commands dispatch on it.
enum class BackendAlgebra { host, thrust_omp, thrust_cuda };
// Where models defined by equations may run on the interpreter, not compiled kernels.
enum class Interpreted { anywhere, off_grid, nowhere };

struct BackendEntry {
  std::string_view name = {};
  bool built = false;             // compiled into this program
  BackendAlgebra algebra = BackendAlgebra::host;
  std::string_view missing = {};  // where not built: why, and how to get it
  bool runs_builtin_ode = false;
  bool runs_equations = false;
  bool runs_grid_kernel = false;
  bool implicit_methods = false;  // Newton's linear solves run on its vectors
  bool parallel_runs = false;     // [ensemble] members and a fit's starts at once, a thread each
  bool events = false;            // [[events]] (time and state events)
  bool shadowing = false;         // gradient.mode = "shadowing"
  bool splits_grid = false;       // a grid split into blocks over mpirun's ranks
  bool simulates = false;         // simulate runs here (else on the cpu, said)
  bool tangent_grid_kernels = false;  // gradient.mode = "tangent" for hand-written grid models
  bool tangent_equations = false;     // ... for built-in ODEs and equations
  bool threaded_kernels = false;  // equations' compiled kernels run on every OpenMP thread
  Interpreted interpreted = Interpreted::nowhere;

  // Whether it runs a model of this kind with an explicit (or an implicit) method.
  bool runs(ModelKind kind, bool explicit_method) const;
  // Whether its gradients of a model of this kind can be the tangent.
  bool tangent(ModelKind kind) const;
};

// Every backend, cpu first (the default).
std::span<const BackendEntry> backends();
const BackendEntry& default_backend();
const BackendEntry* find_backend(std::string_view name);
// Whether the backend named `name` is known and has `capability` (&BackendEntry::events, ...).
bool backend_has(std::string_view name, bool BackendEntry::*capability);

// solver.backend's check: why the named backend cannot run this model with this method
// (unknown, not built, or not for this model or method), saying which backends can; empty
// when it can. `parallel_runs`: the config runs [ensemble] members or a fit's starts,
// which a parallel backend runs a thread each whatever the model.
std::string backend_refusal(std::string_view name, ModelKind kind, std::string_view model, bool explicit_method,
                            std::string_view method, bool parallel_runs);

}  // namespace backsweep
