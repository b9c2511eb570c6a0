#pragma once
// OutputSet: a run's outputs are committed as one set. They are written into a staging
// folder beside the output folder; commit() hard-links in the earlier outputs this run
// does not write again, fsyncs what the run wrote, and swaps the two folders with one
// renameat2(RENAME_EXCHANGE). A kill at any moment leaves either the old set or the new
// one. The staging folder (after the swap: the old set) is removed on failure, on
// SIGTERM, SIGINT or SIGHUP, and, after SIGKILL, by the next run that writes there.
// Commits into one parent folder take turns (an flock on it), so runs of different
// commands into one output folder at once keep each other's outputs.
//
// Where that cannot be done, each output is moved in on its own, atomically, and earlier
// outputs stay where they are: an output folder that holds the working directory (a swap
// would move the caller's shell), one on another file system than its parent (a mount
// point), a parent that cannot be written, or a file system without RENAME_EXCHANGE.
#include <filesystem>

namespace backsweep {

class OutputSet {
 public:
  explicit OutputSet(std::filesystem::path folder);
  ~OutputSet();
  OutputSet(const OutputSet&) = delete;
  OutputSet& operator=(const OutputSet&) = delete;

  // Where the writers put this run's outputs.
  const std::filesystem::path& staging() const { return staging_; }
  void commit();  // throws std::runtime_error, leaving the earlier outputs as they were

 private:
  std::filesystem::path folder_, staging_;
  bool swap_ = true;  // false: each output is moved in on its own
  int signal_ticket_ = -1;
};

}  // namespace backsweep
