// Ranks over MPI (BACKSWEEP_MPI). MPI starts only under a launcher, so the same binary
// runs alone as before, and the Python module, which never opens a Session, has one rank.
#include <mpi.h>

#include <cstdlib>
#include <limits>
#include <stdexcept>

#include "platform/ranks.hpp"

namespace backsweep::ranks {

namespace {

bool started = false;

// Open MPI's, PMIx's or a PMI launcher's mark in the environment.
bool under_launcher() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE"})
    if (std::getenv(name)) return true;
  return false;
}

void check(int status, const char* what) {
  if (status != MPI_SUCCESS) throw std::runtime_error(std::string("MPI: ") + what + " failed");
}

}  // namespace

Session::Session(int& argc, char**& argv) {
  if (!under_launcher()) return;
  int provided = 0;  // the rank's own threads (OpenMP) call no MPI
  check(MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
  started = true;
}

Session::~Session() {
  if (started) MPI_Finalize();
  started = false;
}

int rank() {
  int rank = 0;
  if (started) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

int count() {
  int size = 1;
  if (started) MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

std::vector<std::string> all_gather(const std::string& bytes) {
  if (!started) return {bytes};
  const int size = count();
  if (bytes.size() > std::size_t(std::numeric_limits<int>::max()))
    throw std::length_error("a rank's message exceeds 2 GiB");
  const int mine = int(bytes.size());
  std::vector<int> sizes(static_cast<std::size_t>(size), 0), offsets(static_cast<std::size_t>(size), 0);
  check(MPI_Allgather(&mine, 1, MPI_INT, sizes.data(), 1, MPI_INT, MPI_COMM_WORLD), "MPI_Allgather");
  std::size_t total = 0;
  for (int r = 0; r < size; ++r) {
    if (total > std::size_t(std::numeric_limits<int>::max())) throw std::length_error("an exchange exceeds 2 GiB");
    offsets[std::size_t(r)] = int(total);
    total += std::size_t(sizes[std::size_t(r)]);
  }
  std::string all(total, '\0');
  check(MPI_Allgatherv(bytes.data(), mine, MPI_BYTE, all.data(), sizes.data(), offsets.data(), MPI_BYTE,
                       MPI_COMM_WORLD),
        "MPI_Allgatherv");
  std::vector<std::string> parts;
  for (int r = 0; r < size; ++r) parts.push_back(all.substr(std::size_t(offsets[std::size_t(r)]),
                                                            std::size_t(sizes[std::size_t(r)])));
  return parts;
}

}  // namespace backsweep::ranks
