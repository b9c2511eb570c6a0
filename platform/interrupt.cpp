#include "platform/interrupt.hpp"

#include <signal.h>

#include <atomic>

#include "platform/signal_cleanup.hpp"

namespace backsweep {

namespace {

std::atomic<bool> requested{false};
struct sigaction before_run {};

extern "C" void ask_to_stop(int) { request_interrupt(); }

}  // namespace

bool interrupt_requested() { return requested.load(std::memory_order_relaxed); }
void request_interrupt() { requested.store(true, std::memory_order_relaxed); }

InterruptOnSigint::InterruptOnSigint() {
  requested.store(false);
  detail::sigint_interrupts(true);
  struct sigaction action {};
  action.sa_handler = ask_to_stop;
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGINT, &action, &before_run);
}

InterruptOnSigint::~InterruptOnSigint() {
  ::sigaction(SIGINT, &before_run, nullptr);
  detail::sigint_interrupts(false);
}

}  // namespace backsweep
