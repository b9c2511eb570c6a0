#pragma once
// Stopping a run from outside (the Python module's Ctrl-C): while an InterruptOnSigint
// lives, SIGINT only asks the run to stop, and the solvers, where they report progress
// (each step, forward and backward), throw RunInterrupted. It is not a std::exception, so
// that no handler of failed runs (a fit's failed start, say) takes it for one.
namespace backsweep {

struct RunInterrupted {};

bool interrupt_requested();
void request_interrupt();  // async-signal-safe

// Throws RunInterrupted when asked to stop.
inline void stop_if_interrupted() {
  if (interrupt_requested()) [[unlikely]]
    throw RunInterrupted{};
}

// For its lifetime, SIGINT asks the run to stop instead of ending the process (with the
// cleanup of platform/signal_cleanup.hpp); the handler before it is put back after.
class InterruptOnSigint {
 public:
  InterruptOnSigint();
  ~InterruptOnSigint();
  InterruptOnSigint(const InterruptOnSigint&) = delete;
  InterruptOnSigint& operator=(const InterruptOnSigint&) = delete;
};

}  // namespace backsweep
