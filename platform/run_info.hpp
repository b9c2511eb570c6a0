#pragma once
// What every result file records about the run that wrote it, so a file found later says
// where it came from: the backsweep version, a run id, when the run started, and the
// config (its path, its text as read, and the --set overrides), and how many ranks ran it.
// The program makes one a run (apps/command_io.hpp's CommandIO::run); the writers of
// io/outputs take it.
#include <string>
#include <vector>

namespace backsweep {

struct RunInfo {
  std::string version, run_id, started;  // started: UTC, ISO 8601
  std::string config_file, config_text;
  std::vector<std::string> overrides;
  int ranks = 1;  // the processes that ran it (mpirun)
};

// The run now: a fresh run id and the time, the config file's text (empty when it cannot
// be read: the command reports that itself).
RunInfo describe_run(const std::string& version, const std::string& config_file,
                     const std::vector<std::string>& overrides);

}  // namespace backsweep
