#include "io/outputs/diagnostics_record.hpp"

#include <utility>

namespace backsweep {

std::vector<DiagnosticEntry> diagnostics_record(const GradientDiagnostics& d, const std::string& mode,
                                                const KernelUse& kernels) {
  const auto count = [](std::size_t value) { return DiagnosticValue(std::uint64_t(value)); };
  std::vector<DiagnosticEntry> record = {
      {"mode", mode},
      {"method", d.method},
      {"derivatives", d.derivatives.empty() ? DiagnosticValue() : d.derivatives},
      {"steps", count(d.steps)},
      {"schedule", d.schedule},
      {"schedule_reason", d.schedule_reason},
      {"slots", count(d.slots)},
      {"disk_slots", count(d.disk_slots)},
      {"peak_slots", count(d.peak_slots)},
      {"forward_steps", count(d.forward_steps)},
      {"recomputed_steps", count(d.recomputed_steps)},
      {"sequence_steps", count(d.sequence_steps)},
      {"adjoint_steps", count(d.adjoint_steps)},
      {"rhs_evaluations", count(d.rhs_evaluations)},
      {"vjp_evaluations", count(d.vjp_evaluations)},
      {"storage", d.storage},
      {"checkpoint_bytes", count(d.checkpoint_bytes)},
      {"bytes_written/memory", count(d.memory_written)},
      {"bytes_written/disk", count(d.disk_written)},
      {"bytes_read/memory", count(d.memory_read)},
      {"bytes_read/disk", count(d.disk_read)},
      {"forward_seconds", d.forward_seconds},
      {"backward_seconds", d.backward_seconds}};
  if (kernels.how.empty()) {
    record.push_back({"kernels", {}});
  } else {
    record.push_back({"kernels/how", kernels.how});
    record.push_back({"kernels/compile_seconds", kernels.compile_seconds});
  }
  if (d.nonfinite) {
    record.push_back({"nonfinite/phase", d.nonfinite->phase});
    record.push_back({"nonfinite/step", count(d.nonfinite->step)});
    record.push_back({"nonfinite/time", d.nonfinite->time});
    record.push_back({"nonfinite/component", count(d.nonfinite->component)});
  } else {
    record.push_back({"nonfinite", {}});
  }
  if (d.stiffness) {
    record.push_back({"stiffness/ratio", d.stiffness->ratio});
    record.push_back({"stiffness/samples", count(d.stiffness->samples)});
    record.push_back({"stiffness/stiff", d.stiffness->stiff()});
  } else {
    record.push_back({"stiffness", {}});
  }
  if (const auto& linear = d.linear_solves) {
    record.push_back({"linear_solver/solver", linear->choice.name()});
    record.push_back({"linear_solver/reason", linear->choice.reason});
    if (linear->choice.solver == LinearSolver::gmres || linear->choice.solver == LinearSolver::cg) {
      record.push_back({"linear_solver/tolerance", linear->tolerance});
      for (const auto& [name, stats] : {std::pair{"forward", &linear->forward}, std::pair{"adjoint", &linear->adjoint}}) {
        const std::string group = std::string("linear_solver/") + name;
        record.push_back({group + "/solves", count(stats->solves)});
        record.push_back({group + "/iterations", count(stats->iterations)});
        record.push_back({group + "/most_iterations", count(stats->most_iterations)});
        record.push_back({group + "/worst_residual", stats->worst_residual});
      }
    }
  } else {
    record.push_back({"linear_solver", {}});
  }
  return record;
}

std::vector<DiagnosticEntry> monitor_record(const GrowthReport& r) {
  return {{"watches", std::string(to_string(r.watched))},
          {"verdict", std::string(to_string(r.verdict))},
          {"growth_rate", r.growth_rate},
          {"amplification", r.amplification},
          {"fitted_amplification", r.fitted_amplification},
          {"horizon", r.horizon},
          {"span", r.span},
          {"explanation", r.explanation}};
}

}  // namespace backsweep
