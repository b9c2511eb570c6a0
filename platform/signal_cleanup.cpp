#include "platform/signal_cleanup.hpp"

#include "platform/interrupt.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <iterator>
#include <mutex>
#include <stdexcept>

namespace backsweep::detail {

namespace {

// Fixed storage, written under a mutex, read by the handler with nothing but
// async-signal-safe system calls (open, getdents64, unlinkat, close). getdents64 fills
// records laid out as glibc's dirent64.
constexpr int kMaxFiles = 64;
char paths[kMaxFiles][4096];
bool trees[kMaxFiles];
std::atomic<bool> used[kMaxFiles];
std::mutex registry;
std::atomic<bool> sigint_stops_run{false};


// Empties the folder open as `folder` (depth-first), then closes it. Entries removed
// while reading may hide others, so it reads again until a pass finds none (bounded, in
// case one cannot be removed).
void empty_folder(int folder) {
  alignas(dirent64) char buffer[4096];
  for (int pass = 0; pass < 8; ++pass) {
    bool found = false;
    for (long bytes; (bytes = ::syscall(SYS_getdents64, folder, buffer, sizeof buffer)) > 0;) {
      for (long at = 0; at < bytes;) {
        const auto* entry = reinterpret_cast<const dirent64*>(buffer + at);
        at += entry->d_reclen;
        const char* name = entry->d_name;
        if (std::strcmp(name, ".") == 0 || std::strcmp(name, "..") == 0) continue;
        found = true;
        // A file system that does not say the type (DT_UNKNOWN) refuses to unlink a folder.
        if (entry->d_type == DT_DIR || (::unlinkat(folder, name, 0) != 0 && errno == EISDIR)) {
          const int inner = ::openat(folder, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
          if (inner >= 0) empty_folder(inner);
          ::unlinkat(folder, name, AT_REMOVEDIR);
        }
      }
    }
    if (!found) break;
    ::lseek(folder, 0, SEEK_SET);
  }
  ::close(folder);
}

constexpr int kSignals[] = {SIGTERM, SIGINT, SIGHUP};
struct sigaction before[std::size(kSignals)];  // the handlers found when ours were installed, in kSignals' order

const struct sigaction& before_of(int signal) {
  int i = 0;
  while (kSignals[i] != signal) ++i;
  return before[i];
}

extern "C" void remove_registered_files(int signal, siginfo_t* info, void* context) {
  if (signal == SIGINT && sigint_stops_run.load()) {  // the handler installed later than InterruptOnSigint's
    request_interrupt();
    return;
  }
  // Another's handler (the Python interpreter's): the signal is theirs, the process goes on,
  // and the run removes its files itself.
  const struct sigaction& previous = before_of(signal);
  if (previous.sa_flags & SA_SIGINFO) return previous.sa_sigaction(signal, info, context);
  if (previous.sa_handler != SIG_DFL) return previous.sa_handler(signal);
  for (int i = 0; i < kMaxFiles; ++i) {
    if (!used[i].load()) continue;
    if (trees[i]) {
      const int folder = ::open(paths[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
      if (folder >= 0) empty_folder(folder);
      ::rmdir(paths[i]);
    } else {
      ::unlink(paths[i]);
    }
  }
  ::signal(signal, SIG_DFL);
  ::raise(signal);  // blocked until the handler returns: then it ends the process as it would have
}

// Handlers for the three signals, each blocking all three while it runs; a signal the
// process was started ignoring (nohup) stays ignored.
void install_handlers() {
  struct sigaction action {};
  action.sa_sigaction = remove_registered_files;
  action.sa_flags = SA_SIGINFO;
  sigemptyset(&action.sa_mask);
  for (int signal : kSignals) sigaddset(&action.sa_mask, signal);
  for (std::size_t i = 0; i < std::size(kSignals); ++i)
    if (::sigaction(kSignals[i], nullptr, &before[i]) == 0 && before[i].sa_handler != SIG_IGN)
      ::sigaction(kSignals[i], &action, nullptr);
}

}  // namespace

int remove_on_signal(const std::string& path, bool tree) {
  static const bool handlers = (install_handlers(), true);
  (void)handlers;
  const std::lock_guard lock(registry);
  for (int i = 0; i < kMaxFiles; ++i)
    if (!used[i].load() && path.size() < sizeof(paths[i])) {
      std::strcpy(paths[i], path.c_str());
      trees[i] = tree;
      used[i].store(true);
      return i;
    }
  throw std::runtime_error("too many files to remove on a signal at once");
}

void sigint_interrupts(bool on) { sigint_stops_run.store(on); }

void release_on_signal(int ticket) {
  const std::lock_guard lock(registry);
  used[ticket].store(false);
}

}  // namespace backsweep::detail
