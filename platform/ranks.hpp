#pragma once
// The processes of one run: the ranks of an MPI launcher (mpirun), or this process alone.
// Only platform/mpi_ranks.cpp knows MPI; a build without it (platform/ranks.cpp), or a run
// started without a launcher, has one rank and every exchange is local. The commands
// exchange whole messages through all_gather, so that a rank that stopped
// (platform/rank_exchange.hpp) is seen by the others at their next exchange rather than
// hanging them.
#include <string>
#include <vector>

namespace backsweep::ranks {

// Joins the launcher's ranks when the environment says one started this process; for the
// lifetime of main. Without a launcher (or MPI) nothing is started.
class Session {
 public:
  Session(int& argc, char**& argv);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
};

int rank();
int count();
inline bool is_root() { return rank() == 0; }

// Every rank's bytes, in rank order, on every rank; each rank must call it in the same order.
std::vector<std::string> all_gather(const std::string& bytes);

}  // namespace backsweep::ranks
