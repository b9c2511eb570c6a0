#pragma once
// What each rank of an mpirun prints. Rank 0 prints as a run alone does; the others print
// nothing (stdout and C stdio go to /dev/null) and keep their stderr, so that when one of
// them fails its message reaches rank 0, which prints it once, naming the rank.
#include <exception>
#include <sstream>
#include <streambuf>

#include "apps/error_report.hpp"

namespace backsweep::apps {

class RankOutput {
 public:
  RankOutput();  // on ranks other than 0, takes stdout and stderr away
  ~RankOutput();
  RankOutput(const RankOutput&) = delete;
  RankOutput& operator=(const RankOutput&) = delete;

  // The run's exit code, agreed by every rank (platform/rank_exchange.hpp): `followed` when
  // this rank stopped because another had. Rank 0 prints a failing rank's errors (and
  // keeps them in `report`).
  int end(int code, bool followed, ErrorReport& report);

 private:
  std::ostringstream errors_;
  std::streambuf* cout_ = nullptr;
  std::streambuf* cerr_ = nullptr;
};

// What a run out of memory says (main's catch, and abort_every_rank's).
inline constexpr const char* kOutOfMemory =
    "out of memory: the run needs more than this machine can give it (fewer steps or points, a checkpoint budget "
    "such as [checkpointing] memory = \"1GiB\", or [time] output_step)";

// Ends every rank now (MPI_Abort, exit 1) from a rank the others cannot wait for, as in a
// split grid, where they are blocked in a halo exchange with it. `error` is printed as
// this rank's error line, "error: rank R: ..." past rank 0, on the stderr this rank
// started with (RankOutput took it away), where it can be (memory may have run out).
[[noreturn]] void abort_every_rank(const std::exception_ptr& error) noexcept;

}  // namespace backsweep::apps
