#pragma once
// std::cerr's lines, sorted by thread: on a thread collecting (a run of the module), lines
// that begin "warning: " are kept (raised as Python warnings) and those that begin
// "error: " dropped (the exception carries the message); every other line, and every line
// of a thread not collecting (the progress display's, another run's), goes on to stderr
// at once. Installed once for the process, so that concurrent runs never swap std::cerr's
// buffer under each other; it has no buffer of its own and keeps each thread's line apart.
#include <iostream>
#include <streambuf>
#include <string>
#include <string_view>
#include <vector>

namespace backsweep::python {

class WarningLines : public std::streambuf {
 public:
  // std::cerr's lines go through the one router from the first call on.
  static void install() { static WarningLines router; }

  // While it lives, this thread's warnings are kept in `into`.
  class Collect {
   public:
    explicit Collect(std::vector<std::string>& into) { collecting = &into; }
    ~Collect() {
      route(true);
      collecting = nullptr;
    }
    Collect(const Collect&) = delete;
    Collect& operator=(const Collect&) = delete;
  };

 protected:
  int_type overflow(int_type c) override {
    if (c == traits_type::eof()) return traits_type::not_eof(c);
    line += traits_type::to_char_type(c);
    if (c == '\n' || c == '\r') route(true);
    return c;
  }
  int sync() override {  // std::cerr flushes after every <<
    route(false);
    return stderr_->pubsync();
  }

 private:
  WarningLines() { stderr_ = std::cerr.rdbuf(this); }
  ~WarningLines() override { std::cerr.rdbuf(stderr_); }

  static constexpr std::string_view kWarning = "warning: ", kError = "error: ";
  static inline std::streambuf* stderr_ = nullptr;
  static inline thread_local std::string line;
  static inline thread_local std::vector<std::string>* collecting = nullptr;

  // `complete`: the line has ended. A line of a collecting thread that is or may become a
  // warning or an error waits for its end; any other goes out now.
  static void route(bool complete) {
    const auto is = [&](std::string_view prefix) {
      return line.starts_with(prefix) || (!complete && prefix.starts_with(line));
    };
    if (line.empty()) return;
    if (collecting && (is(kWarning) || is(kError))) {
      if (!complete) return;
      if (line.starts_with(kWarning)) {
        std::string text = line.substr(kWarning.size());
        while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
        collecting->push_back(std::move(text));
      }
    } else {
      stderr_->sputn(line.data(), std::streamsize(line.size()));
    }
    line.clear();
  }
};

}  // namespace backsweep::python
