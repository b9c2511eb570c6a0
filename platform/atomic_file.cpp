#include "platform/atomic_file.hpp"

#include <unistd.h>

#include <stdexcept>
#include <system_error>

#include "platform/signal_cleanup.hpp"
#include "platform/stale_files.hpp"

namespace backsweep {

namespace {

// Removes "<target>.tmp-<pid>" files of processes that no longer run (a run killed by
// SIGKILL, which no handler sees).
void remove_stale_temporaries(const std::filesystem::path& target) {
  const std::string prefix = target.filename().string() + ".tmp-";
  std::error_code error;
  const std::filesystem::path folder = target.has_parent_path() ? target.parent_path() : ".";
  for (const auto& entry : std::filesystem::directory_iterator(folder, error))
    if (detail::left_by_dead_process(entry.path().filename().string(), prefix))
      std::filesystem::remove(entry.path(), error);
}

}  // namespace

AtomicFile::AtomicFile(std::filesystem::path target)
    : target_(std::move(target)), temporary_(target_.string() + ".tmp-" + std::to_string(::getpid())) {
  remove_stale_temporaries(target_);
  signal_ticket_ = detail::remove_on_signal(temporary_.string());
}

AtomicFile::~AtomicFile() {
  detail::release_on_signal(signal_ticket_);
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
