#pragma once
// Progress of a run on stderr: once it has taken a second, the share done, the time
// reached and an estimate of the time left, on one line redrawn every second on a
// terminal, or a line every 10 s into a file. The solvers report through RunProgress;
// a thread here reads it. BACKSWEEP_PROGRESS=off silences it; a number of seconds (up to
// 10^6) replaces the first second, and the interval becomes a tenth of it (at least 1 ms):
// the tests use that.
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include "solvers/integrate_options.hpp"

namespace backsweep::apps {

class ProgressDisplay {
 public:
  // A run over [t0, t1]; with `backward`, a gradient whose adjoint sweep follows the
  // forward one (taken as a third of the work: gradient/forward is about 3).
  ProgressDisplay(std::string label, double t0, double t1, bool backward);
  ~ProgressDisplay();  // stops the thread and ends the line
  ProgressDisplay(const ProgressDisplay&) = delete;
  ProgressDisplay& operator=(const ProgressDisplay&) = delete;

  RunProgress* progress() { return &progress_; }

 private:
  void run();
  std::string line(double seconds) const;

  std::string label_;
  double t0_, t1_;
  bool backward_;
  RunProgress progress_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::duration<double> first_{1.0}, interval_{1.0};
  double backward_since_ = -1.0;  // seconds in when the adjoint sweep was first seen
  bool terminal_ = false, shown_ = false, stop_ = false;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::thread thread_;
};

}  // namespace backsweep::apps
