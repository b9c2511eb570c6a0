#include "io/detail/signal_cleanup.hpp"

#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstring>
#include <mutex>
#include <stdexcept>

namespace backsweep::detail {

namespace {

// Fixed storage, written under a mutex, read by the handler with nothing but unlink
// (async-signal-safe).
constexpr int kMaxFiles = 64;
char paths[kMaxFiles][4096];
std::atomic<bool> used[kMaxFiles];
std::mutex registry;

extern "C" void remove_registered_files(int signal) {
  for (int i = 0; i < kMaxFiles; ++i)
    if (used[i].load()) ::unlink(paths[i]);
  std::signal(signal, SIG_DFL);
  std::raise(signal);
}

}  // namespace

int remove_on_signal(const std::string& path) {
  static const bool handlers = [] {
    for (int signal : {SIGTERM, SIGINT, SIGHUP}) std::signal(signal, remove_registered_files);
    return true;
  }();
  (void)handlers;
  const std::lock_guard lock(registry);
  for (int i = 0; i < kMaxFiles; ++i)
    if (!used[i].load() && path.size() < sizeof(paths[i])) {
      std::strcpy(paths[i], path.c_str());
      used[i].store(true);
      return i;
    }
  throw std::runtime_error("too many files to remove on a signal at once");
}

void release_on_signal(int ticket) {
  const std::lock_guard lock(registry);
  used[ticket].store(false);
}

}  // namespace backsweep::detail
