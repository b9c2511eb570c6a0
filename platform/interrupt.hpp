#pragma once
// Stopping a run from outside (the Python module's Ctrl-C): while an InterruptOnSigint
// lives, SIGINT only asks the run started on its thread to stop, and the solvers, where
// they report progress (each step, forward and backward), throw RunInterrupted. It is not
// a std::exception, so that no handler of failed runs (a fit's failed start, say) takes
// it for one. Runs on other threads (the module's, off Python's main thread) go on.
#include <atomic>

namespace backsweep {

struct RunInterrupted {};

// Whether the run of the thread holding it is asked to stop; copied into work the run
// hands to other threads. A default one is never asked.
class StopRequest {
 public:
  StopRequest() = default;
  explicit StopRequest(const std::atomic<bool>* flag) : flag_(flag) {}
  bool requested() const { return flag_ && flag_->load(std::memory_order_relaxed); }
  void throw_if_requested() const {
    if (requested()) [[unlikely]]
      throw RunInterrupted{};
  }

 private:
  const std::atomic<bool>* flag_ = nullptr;
};

// The stop request of this thread's InterruptOnSigint, or one never asked.
StopRequest this_threads_stop_request();
void request_interrupt();  // async-signal-safe

// Throws RunInterrupted when this thread's run is asked to stop.
inline void stop_if_interrupted() { this_threads_stop_request().throw_if_requested(); }

// For its lifetime, SIGINT asks the run of this thread to stop instead of ending the
// process (with the cleanup of platform/signal_cleanup.hpp); the handler before it is put
// back after. One at a time in a process: SIGINT is the process's.
class InterruptOnSigint {
 public:
  InterruptOnSigint();
  ~InterruptOnSigint();
  InterruptOnSigint(const InterruptOnSigint&) = delete;
  InterruptOnSigint& operator=(const InterruptOnSigint&) = delete;

  bool requested() const;  // whether a SIGINT came, looked for or not
};

}  // namespace backsweep
