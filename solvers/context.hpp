#pragma once
// What a line of work owns beyond its vectors, as SUNDIALS' SUNContext owns its logger and
// profiler: here the memory pool its checkpoint stores are recycled through and mapped
// ahead from (recycled_memory.hpp). A caller makes one and passes it down in
// IntegrateOptions::context; a run given none uses default_context(). A context must
// outlive the runs given it. Runs on several threads may share one (its pool locks),
// but a pool keeps one block: runs at once on large stores do better with one each.
#include "solvers/integrate_options.hpp"
#include "solvers/recycled_memory.hpp"

namespace backsweep {

class Context {
 public:
  Context() = default;
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  MemoryPool& memory() { return memory_; }

 private:
  MemoryPool memory_;
};

// The process's, for runs given no context (and the free functions of
// recycled_memory.hpp): never destroyed, so that a block freed by another global's
// destructor at exit still finds its pool.
Context& default_context();

inline Context& context_of(const IntegrateOptions& options) {
  return options.context ? *options.context : default_context();
}

}  // namespace backsweep
