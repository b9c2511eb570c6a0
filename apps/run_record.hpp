#pragma once
// The record of a run beside its outputs: <command>_run.json in the output folder, with
// the run's id, the backsweep version, the start time, the config file, its text and the
// --set overrides, and the files the run wrote with their sizes. It is written into the
// staging folder last and committed with the set it describes, so CSV and VTK files
// (which have no place for attributes) are accounted for as the HDF5 files are.
#include <string>

#include "platform/output_set.hpp"
#include "platform/run_info.hpp"

namespace backsweep::apps {

void commit_outputs(OutputSet& outputs, const std::string& command, const RunInfo& run);

}  // namespace backsweep::apps
