#pragma once
// What `gradient` writes for an [ensemble]: <dir>/gradient.h5 with a row a member
// (written to a temporary name and renamed into place).
//   root attributes model, mode, backend, source (the members file, or "latin_hypercube,
//     seed N")
//   /ensemble/values [members x varied] (attribute names), /ensemble/objective [members]
//     (NaN where a member failed), /ensemble/status [members] (attribute codes: the
//     status names by code, 0 = success), /ensemble/steps [members]
//   /gradient/parameters [members x reported] and /gradient/initial [members x states]
//     (attribute names)
//   /monitor/verdict [members] (attribute codes; kNoVerdict: the member failed before the
//     monitor reported), /monitor/growth_rate and
//     /monitor/amplification [members] (adjoint mode)
#include <cstddef>
#include <string>
#include <vector>
#include "platform/run_info.hpp"

namespace backsweep {

inline constexpr std::size_t kNoVerdict = 4;  // after GrowthVerdict's codes

struct EnsembleOutput {
  std::string model, mode, backend, source;
  std::vector<std::string> varied_names, parameter_names, state_names;
  std::vector<double> values;           // members x varied_names
  std::vector<double> objective;        // members
  std::vector<std::size_t> status, steps;
  std::vector<double> dJ_dp, dJ_dy0;    // members x parameter_names, members x state_names
  std::vector<std::size_t> verdict;     // empty when no member has a monitor report
  std::vector<double> growth_rate, amplification;
};

void write_ensemble_hdf5(const EnsembleOutput& output, const std::string& path, const RunInfo& run);

}  // namespace backsweep
