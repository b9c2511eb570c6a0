#include "apps/parallel_members.hpp"

#include <stdexcept>

#if BACKSWEEP_OPENMP_BUILT
#include <omp.h>

#include "gpu/member_loop.hpp"
#endif

namespace backsweep::apps {

void for_each_member(std::size_t count, bool parallel, const std::function<void(std::size_t)>& work) {
  if (!parallel) {
    for (std::size_t b = 0; b < count; ++b) work(b);
    return;
  }
#if BACKSWEEP_OPENMP_BUILT
  gpu::for_each_member(count, work);
#else
  throw std::logic_error("for_each_member: this build has no OpenMP backend");
#endif
}

std::size_t members_at_once() {
#if BACKSWEEP_OPENMP_BUILT
  return std::size_t(omp_get_max_threads());
#else
  return 1;
#endif
}

}  // namespace backsweep::apps
