// Ranks over MPI (BACKSWEEP_MPI). MPI starts only under a launcher, so the same binary
// runs alone as before, and the Python module, which never opens a Session, has one rank.
#include <mpi.h>

#include <algorithm>
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
  if (provided < MPI_THREAD_FUNNELED) throw std::runtime_error("MPI: this MPI library cannot run beside threads");
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
  const auto size = static_cast<std::size_t>(count());
  // Every rank's length first, so that every rank finds a message too long for MPI's int
  // counts alike (and throws alike) before the exchange itself.
  const long long mine = static_cast<long long>(bytes.size());
  std::vector<long long> lengths(size, 0);
  check(MPI_Allgather(&mine, 1, MPI_LONG_LONG, lengths.data(), 1, MPI_LONG_LONG, MPI_COMM_WORLD), "MPI_Allgather");
  std::vector<int> sizes(size, 0), offsets(size, 0);
  long long total = 0;
  for (std::size_t r = 0; r < size; ++r) {
    offsets[r] = int(std::min<long long>(total, std::numeric_limits<int>::max()));
    sizes[r] = int(std::min<long long>(lengths[r], std::numeric_limits<int>::max()));
    total += lengths[r];
  }
  if (total > std::numeric_limits<int>::max()) throw std::length_error("an exchange between ranks exceeds 2 GiB");
  std::string all(static_cast<std::size_t>(total), '\0');
  check(MPI_Allgatherv(bytes.data(), int(mine), MPI_BYTE, all.data(), sizes.data(), offsets.data(), MPI_BYTE,
                       MPI_COMM_WORLD),
        "MPI_Allgatherv");
  std::vector<std::string> parts;
  for (std::size_t r = 0; r < size; ++r)
    parts.push_back(all.substr(std::size_t(offsets[r]), std::size_t(sizes[r])));
  return parts;
}

void send_receive(const void* send, int to, void* receive, int from, std::size_t bytes) {
  if (!started) return;  // one rank has no neighbours
  if (bytes > std::size_t(std::numeric_limits<int>::max())) throw std::length_error("a plane exceeds 2 GiB");
  check(MPI_Sendrecv(send, int(bytes), MPI_BYTE, to < 0 ? MPI_PROC_NULL : to, 0, receive, int(bytes), MPI_BYTE,
                     from < 0 ? MPI_PROC_NULL : from, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
        "MPI_Sendrecv");
}

void abort(int code) {
  if (started) MPI_Abort(MPI_COMM_WORLD, code);
  std::exit(code);
}

}  // namespace backsweep::ranks
