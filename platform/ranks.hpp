#pragma once
// The processes of one run: the ranks of an MPI launcher (mpirun), or this process alone.
// Only platform/mpi_ranks.cpp knows MPI; a build without it (platform/ranks.cpp), or a run
// started without a launcher, has one rank and every exchange is local. The commands
// exchange whole messages through all_gather, so that a rank that stopped
// (platform/rank_exchange.hpp) is seen by the others at their next exchange rather than
// hanging them.
#include <cstddef>
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

// Sends `bytes` bytes at `send` to rank `to` while receiving as many from rank `from` into
// `receive`; a rank of -1 is none (nothing sent, or nothing received). Neighbours of a grid
// block (models/grid_block.hpp) swap their edge planes through it.
void send_receive(const void* send, int to, void* receive, int from, std::size_t bytes);

// Ends every rank at once, with `code` (MPI_Abort): for a rank that cannot go on where the
// others wait on it in a halo exchange. Alone, exits with `code`.
[[noreturn]] void abort(int code);

}  // namespace backsweep::ranks
