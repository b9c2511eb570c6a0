#include "apps/rank_output.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <new>
#include <string>

#include "apps/error_report.hpp"
#include "platform/rank_exchange.hpp"
#include "platform/ranks.hpp"

namespace backsweep::apps {

namespace {

// Takes every character and keeps none (a null rdbuf would mark stdout as failed).
class Discard : public std::streambuf {
  int overflow(int c) override { return traits_type::not_eof(c); }
  std::streamsize xsputn(const char*, std::streamsize count) override { return count; }
};

// The first "error: ..." line a rank printed, without the mark.
std::string first_error(const std::string& text) {
  std::istringstream lines(text);
  const std::string mark = "error: ";
  for (std::string line; std::getline(lines, line);)
    if (line.starts_with(mark)) return line.substr(mark.size());
  return "failed";
}

int started_stderr = -1;  // a copy of stderr as the rank started, where RankOutput took it

}  // namespace

RankOutput::RankOutput() {
  if (ranks::is_root()) return;
  static Discard discard;
  cout_ = std::cout.rdbuf(&discard);
  cerr_ = std::cerr.rdbuf(errors_.rdbuf());
  if (started_stderr < 0) started_stderr = ::fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 0);
  (void)std::freopen("/dev/null", "w", stdout);
  (void)std::freopen("/dev/null", "w", stderr);
}

RankOutput::~RankOutput() {
  if (cout_) std::cout.rdbuf(cout_);
  if (cerr_) std::cerr.rdbuf(cerr_);
}

int RankOutput::end(int code, bool followed, ErrorReport& report) {
  if (ranks::count() == 1) return code;
  const ranks::Ending ending = ranks::agree_to_stop(code, followed, errors_.str());
  if (ranks::is_root() && ending.code != 0 && ending.rank != 0)
    report_error(report, "rank ", ending.rank, ": ", first_error(ending.message));  // also what --json reports
  return ending.code;
}

void abort_every_rank(const std::exception_ptr& error) noexcept {
  try {
    std::string message = "failed";
    try {
      std::rethrow_exception(error);
    } catch (const std::bad_alloc&) {
      message = kOutOfMemory;
    } catch (const std::exception& e) {
      message = e.what();
    } catch (...) {
    }
    if (ranks::is_root()) {
      ErrorReport report;  // printed, and the run ends here
      report_error(report, message);
    } else if (started_stderr >= 0) {
      const std::string line = "error: rank " + std::to_string(ranks::rank()) + ": " + message + "\n";
      (void)!::write(started_stderr, line.data(), line.size());
    }
  } catch (...) {  // no memory left to say it: end the ranks all the same
  }
  ranks::abort(1);
}

}  // namespace backsweep::apps
