#pragma once
// A gradient's diagnostics as one list of named values, which every sink serialises as it
// is: `--json` as nested objects, gradient.h5 as attributes of /diagnostics and its
// subgroups. A name's '/' nests ("bytes_written/memory"); a null value says the group is
// absent (JSON null; nothing in HDF5). The growth monitor has a record of its own.
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "adjoint/gradient_problem.hpp"

namespace backsweep {

using DiagnosticValue = std::variant<std::monostate, std::string, std::uint64_t, double, bool>;

struct DiagnosticEntry {
  std::string name;
  DiagnosticValue value;
};

// How a model defined by equations ran: "compiled" (native kernels; compile_seconds is
// what building them took in this run, 0 where they came from the cache), "cuda" (CUDA
// kernels, likewise) or "interpreted"; empty for other models.
struct KernelUse {
  std::string how;
  double compile_seconds = 0.0;
};

// mode: the gradient mode that ran (adjoint, tangent).
std::vector<DiagnosticEntry> diagnostics_record(const GradientDiagnostics& diagnostics, const std::string& mode,
                                                const KernelUse& kernels = {});

// The monitor's verdict, rate, amplification, horizon, span and explanation.
std::vector<DiagnosticEntry> monitor_record(const GrowthReport& report);

}  // namespace backsweep
