#include "io/atomic_file.hpp"

#include <unistd.h>

#include <stdexcept>
#include <system_error>

namespace backsweep {

AtomicFile::AtomicFile(std::filesystem::path target)
    : target_(std::move(target)),
      temporary_(target_.string() + ".tmp-" + std::to_string(::getpid())) {}

AtomicFile::~AtomicFile() {
  if (committed_) return;
  std::error_code ignored;
  std::filesystem::remove(temporary_, ignored);
}

void AtomicFile::commit() {
  std::error_code error;
  std::filesystem::rename(temporary_, target_, error);
  if (error)
    throw std::runtime_error("cannot move " + temporary_.string() + " to " +
                             target_.string() + ": " + error.message());
  committed_ = true;
}

}  // namespace backsweep
