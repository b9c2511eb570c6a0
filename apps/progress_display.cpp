#include "apps/progress_display.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sstream>

namespace backsweep::apps {

ProgressDisplay::ProgressDisplay(std::string label, double t0, double t1, bool backward)
    : label_(std::move(label)), t0_(t0), t1_(t1), backward_(backward), terminal_(::isatty(STDERR_FILENO)) {
  if (!terminal_) interval_ = std::chrono::seconds(10);
  if (const char* setting = std::getenv("BACKSWEEP_PROGRESS")) {
    if (std::string(setting) == "off") return;
    char* end = nullptr;
    const double seconds = std::strtod(setting, &end);
    if (end != setting && *end == '\0' && seconds >= 0.0 && seconds <= 1e6) {  // else: the defaults
      first_ = std::chrono::duration<double>(seconds);
      interval_ = std::max(first_ / 10.0, std::chrono::duration<double>(1e-3));
    }
  }
  thread_ = std::thread([this] { run(); });
}

ProgressDisplay::~ProgressDisplay() {
  if (!thread_.joinable()) return;
  {
    const std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_one();
  thread_.join();
  if (shown_ && terminal_) std::cerr << '\n';
}

// Looks every 50 ms at most (when the adjoint sweep starts, for its rate) and prints at
// the interval.
void ProgressDisplay::run() {
  using seconds = std::chrono::duration<double>;
  const auto elapsed = [&] { return seconds(std::chrono::steady_clock::now() - start_); };
  const seconds look = std::min(interval_, seconds(0.05));
  std::unique_lock lock(mutex_);
  if (wake_.wait_for(lock, first_, [this] { return stop_; })) return;
  seconds next = elapsed();
  do {
    const seconds now = elapsed();
    if (backward_ && backward_since_ < 0.0 && !std::isnan(progress_.backward.load(std::memory_order_relaxed)))
      backward_since_ = now.count();
    if (now >= next) {
      std::cerr << (terminal_ ? "\r" : "") << line(now.count()) << (terminal_ ? "\033[K" : "\n") << std::flush;
      shown_ = true;
      next = now + interval_;
    }
  } while (!wake_.wait_for(lock, look, [this] { return stop_; }));
}

// "gradient: backward sweep 40% (t = 1.2 of [0, 2], 0.26/s), 3.1 s, about 4.6 s left": the
// rate is simulated time per second in the sweep under way; "pass 2 of 3" where several
// forward solves take turns (the tangent's lanes).
std::string ProgressDisplay::line(double seconds) const {
  const double forward = progress_.forward.load(std::memory_order_relaxed),
               backward = progress_.backward.load(std::memory_order_relaxed), span = t1_ - t0_;
  const std::size_t passes = std::max<std::size_t>(progress_.passes.load(), 1), pass = progress_.pass.load();
  const bool going_back = backward_ && !std::isnan(backward);
  const double t = going_back ? backward : forward;
  const double in_pass =
      std::isnan(t) ? 0.0 : std::clamp(going_back ? (t1_ - t) / span : (t - t0_) / span, 0.0, 1.0);
  const double done = going_back ? in_pass : (double(pass) + in_pass) / double(passes);  // of this sweep
  const double share = !backward_ ? done : going_back ? (1.0 + 2.0 * done) / 3.0 : done / 3.0;  // of the run
  std::ostringstream text;
  text.precision(3);
  text << label_ << ": " << (backward_ ? (going_back ? "backward sweep " : "forward sweep ") : "")
       << std::lround(100.0 * done) << "%";
  if (passes > 1) text << " (pass " << pass + 1 << " of " << passes << ")";
  const double sweep_seconds = going_back && backward_since_ >= 0.0 ? seconds - backward_since_ : seconds;
  if (!std::isnan(t)) {
    text << " (t = " << t << " of [" << t0_ << ", " << t1_ << "]";
    if (sweep_seconds > 0.0) text << ", " << done * double(passes) * span / sweep_seconds << "/s";
    text << ")";
  }
  text << ", " << seconds << " s";
  if (share > 0.0) text << ", about " << seconds * (1.0 - share) / share << " s left";
  return text.str();
}

}  // namespace backsweep::apps
