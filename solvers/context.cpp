#include "solvers/context.hpp"

namespace backsweep {

Context& default_context() {
  static Context& context = *new Context;
  return context;
}

MemoryPool& default_memory_pool() { return default_context().memory(); }

}  // namespace backsweep
