#pragma once
// What each rank of an mpirun prints. Rank 0 prints as a run alone does; the others print
// nothing (stdout and C stdio go to /dev/null) and keep their stderr, so that when one of
// them fails its message reaches rank 0, which prints it once, naming the rank.
#include <sstream>
#include <streambuf>

namespace backsweep::apps {

class RankOutput {
 public:
  RankOutput();  // on ranks other than 0, takes stdout and stderr away
  ~RankOutput();
  RankOutput(const RankOutput&) = delete;
  RankOutput& operator=(const RankOutput&) = delete;

  // The run's exit code, agreed by every rank (platform/rank_exchange.hpp): `followed` when
  // this rank stopped because another had. Rank 0 prints a failing rank's errors.
  int end(int code, bool followed);

 private:
  std::ostringstream errors_;
  std::streambuf* cout_ = nullptr;
  std::streambuf* cerr_ = nullptr;
};

}  // namespace backsweep::apps
