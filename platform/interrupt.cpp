#include "platform/interrupt.hpp"

#include <signal.h>

#include "platform/signal_cleanup.hpp"

namespace backsweep {

namespace {

std::atomic<bool> asked{false};  // set by SIGINT
thread_local const std::atomic<bool>* listening = nullptr;  // &asked on the thread of an InterruptOnSigint
struct sigaction before_run {};

extern "C" void ask_to_stop(int) { request_interrupt(); }

}  // namespace

StopRequest this_threads_stop_request() { return StopRequest(listening); }
void request_interrupt() { asked.store(true, std::memory_order_relaxed); }

InterruptOnSigint::InterruptOnSigint() {
  asked.store(false);
  listening = &asked;
  detail::sigint_interrupts(true);
  struct sigaction action {};
  action.sa_handler = ask_to_stop;
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGINT, &action, &before_run);
}

InterruptOnSigint::~InterruptOnSigint() {
  ::sigaction(SIGINT, &before_run, nullptr);
  detail::sigint_interrupts(false);
  listening = nullptr;
}

bool InterruptOnSigint::requested() const { return asked.load(); }

}  // namespace backsweep
