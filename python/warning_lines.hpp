#pragma once
// While it lives, std::cerr's lines that begin "warning: " are kept (the module raises
// them as Python warnings) and those that begin "error: " dropped (the exception carries
// the message); every other line (progress, what a run wrote) goes on to stderr at once.
// The progress display writes from its own thread, so lines are cut under a lock.
#include <iostream>
#include <mutex>
#include <streambuf>
#include <string>
#include <string_view>
#include <vector>

namespace backsweep::python {

class WarningLines : public std::streambuf {
 public:
  WarningLines() : stderr_(std::cerr.rdbuf(this)) {}
  ~WarningLines() override {
    std::cerr.rdbuf(stderr_);
    route(true);
  }
  WarningLines(const WarningLines&) = delete;
  WarningLines& operator=(const WarningLines&) = delete;

  std::vector<std::string> take() {
    const std::lock_guard lock(mutex_);
    return std::move(warnings_);
  }

 protected:
  int_type overflow(int_type c) override {
    if (c == traits_type::eof()) return traits_type::not_eof(c);
    const std::lock_guard lock(mutex_);
    line_ += traits_type::to_char_type(c);
    if (c == '\n' || c == '\r') route(true);
    return c;
  }
  int sync() override {  // std::cerr flushes after every <<
    const std::lock_guard lock(mutex_);
    route(false);
    return stderr_->pubsync();
  }

 private:
  static constexpr std::string_view kWarning = "warning: ", kError = "error: ";

  // `complete`: the line has ended. A line that is or may become a warning or an error
  // waits for its end; any other goes out now.
  void route(bool complete) {
    const auto is = [&](std::string_view prefix) {
      return line_.starts_with(prefix) || (!complete && prefix.starts_with(line_));
    };
    if (line_.empty()) return;
    if (is(kWarning) || is(kError)) {
      if (!complete) return;
      if (line_.starts_with(kWarning)) {
        std::string text = line_.substr(kWarning.size());
        while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
        warnings_.push_back(std::move(text));
      }
    } else {
      stderr_->sputn(line_.data(), std::streamsize(line_.size()));
    }
    line_.clear();
  }

  std::streambuf* stderr_;
  std::mutex mutex_;
  std::string line_;
  std::vector<std::string> warnings_;
};

}  // namespace backsweep::python
