#pragma once
// Ensembles: the gradients of many members of one problem, each with its own initial
// state and parameters, the members in parallel on Thrust's device system, one thread a
// member, each with its own step sequence, fixed or adaptive, and its own checkpoints.
//   - On the OpenMP system a member's thread runs the engine itself (gradient() on the
//     CPU algebra), any checkpointing in memory: every member's gradient is bitwise the
//     one a serial run gives.
//   - Under CUDA the engine's host sweep cannot run in a GPU thread: members run
//     member_gradients (gpu/member_sweep.hpp), store-all inside the thread, at most 4096
//     accepted steps a member, for the problems it takes (explicit methods, static sizes,
//     a terminal objective; others do not compile).
#include <cstddef>
#include <exception>
#include <vector>

#include "adjoint/discrete_adjoint.hpp"
#include "gpu/member_loop.hpp"
#include "gpu/member_sweep.hpp"
#include "gpu/system.hpp"
#include "gpu/thrust_algebra.hpp"

namespace BACKSWEEP_GPU_NAMESPACE {

namespace detail {

template <Model M, class Obj>
struct MemberGradient {
  const GradientProblem<M, Obj>* problem;
  const EnsembleMember* members;
  const CheckpointOptions* checkpointing;
  GradientResult<double>* results;
  void operator()(std::size_t b) const {
    try {
      results[b] = gradient<double>(*problem, members[b].y0, members[b].p, *checkpointing);
    } catch (const std::exception& error) {  // a thread may not throw: the member fails
      results[b].status = IntegrateStatus::invalid_options;
      results[b].message = error.what();
    }
  }
};

}  // namespace detail

// One gradient a member, in member order. Disk checkpoints (two_level) would share one
// file, so they are refused on either system.
template <Model M, class Obj>
std::vector<GradientResult<double>> ensemble_gradients(const GradientProblem<M, Obj>& problem,
                                                       const std::vector<EnsembleMember>& members,
                                                       const CheckpointOptions& checkpointing = {}) {
  if (checkpointing.disk || checkpointing.disk_slots ||
      checkpointing.schedule == CheckpointOptions::Schedule::two_level) {
    std::vector<GradientResult<double>> results(members.size());
    for (auto& result : results) {
      result.status = IntegrateStatus::invalid_options;
      result.message = "ensembles keep their checkpoints in memory: no disk level";
    }
    return results;
  }
#if BACKSWEEP_THRUST_CUDA
  return member_gradients(problem, members);  // store-all in the thread, whatever the schedule
#else
  std::vector<GradientResult<double>> results(members.size());
  for_each_member(members.size(),
                  detail::MemberGradient<M, Obj>{&problem, members.data(), &checkpointing, results.data()});
  return results;
#endif
}

}  // namespace BACKSWEEP_GPU_NAMESPACE
