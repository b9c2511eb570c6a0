#pragma once
// Ensembles: the gradients of many members of one problem, each with its own initial
// state and parameters, the members in parallel on Thrust's device system, one thread a
// member. On the OpenMP system a member's thread runs the engine itself (gradient() on the
// CPU algebra), with the member's own step sequence, fixed or adaptive, and its own
// checkpoints: every member's gradient is bitwise the one a serial run gives.
//
// Under CUDA a member per GPU thread needs a stepper that keeps its stages in registers
// and a step controller in device code; that is not built yet, and this header is for
// the OpenMP system only.
#include <cstddef>
#include <exception>
#include <vector>

#include "adjoint/discrete_adjoint.hpp"
#include "gpu/member_loop.hpp"
#include "gpu/thrust_algebra.hpp"

static_assert(!BACKSWEEP_THRUST_CUDA, "ensembles run on Thrust's OpenMP system (see gpu/ensemble.hpp)");

namespace backsweep::gpu {

struct EnsembleMember {
  std::vector<double> y0, p;
};

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
// file, so they are refused.
template <Model M, class Obj>
std::vector<GradientResult<double>> ensemble_gradients(const GradientProblem<M, Obj>& problem,
                                                       const std::vector<EnsembleMember>& members,
                                                       const CheckpointOptions& checkpointing = {}) {
  std::vector<GradientResult<double>> results(members.size());
  if (checkpointing.disk || checkpointing.disk_slots ||
      checkpointing.schedule == CheckpointOptions::Schedule::two_level) {
    for (auto& result : results) {
      result.status = IntegrateStatus::invalid_options;
      result.message = "ensembles keep their checkpoints in memory: no disk level";
    }
    return results;
  }
  for_each_member(members.size(),
                  detail::MemberGradient<M, Obj>{&problem, members.data(), &checkpointing, results.data()});
  return results;
}

}  // namespace backsweep::gpu
