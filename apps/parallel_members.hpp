#pragma once
// Runs work(b) for the members b = 0 .. count-1 of an ensemble: in order on this thread
// (backend cpu), or in parallel on Thrust's OpenMP system, a thread a member (omp).
// `work` must not throw: a member records its own failure.
#include <cstddef>
#include <functional>

namespace backsweep::apps {

void for_each_member(std::size_t count, bool parallel, const std::function<void(std::size_t)>& work);
// How many members run at once in parallel (OpenMP's threads; 1 in a build without it).
std::size_t members_at_once();

}  // namespace backsweep::apps
