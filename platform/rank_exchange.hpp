#pragma once
// How ranks exchange work and stop together. Every message carries what its rank is
// doing: working, or stopped with an exit code. A rank that fails (a bad config it alone
// reads, an allocation, a file) stops and waits in agree_to_stop(); the others see it at
// their next exchange, which throws RanksStopped, and join it. No rank waits on one that
// has left, and the run ends with the failing rank's code and message.
#include <string>
#include <vector>

namespace backsweep::ranks {

// Another rank stopped the run: its exit code. Not a std::exception, so that the handlers
// that turn a failed evaluation into a failed start or line search let it pass to main.
struct RanksStopped {
  int rank, code;
};

// Every rank's bytes, in rank order; throws RanksStopped when a rank has stopped.
std::vector<std::string> exchange(const std::string& bytes);
// An exchange of nothing: that every rank is still working.
inline void check_others() { exchange({}); }

// The run's end, the same on every rank: the exit code and message of the lowest rank that
// failed by itself (not one that stopped because another had), or 0 and no message.
struct Ending {
  int code = 0, rank = 0;
  std::string message;
};
// `followed`: this rank stopped because another had (it caught RanksStopped).
Ending agree_to_stop(int code, bool followed, const std::string& message);

}  // namespace backsweep::ranks
