#pragma once
// AtomicFile: write to "<path>.tmp-<pid>", then commit() renames it over <path>. If the
// writer fails (or commit is never reached) the temporary file is removed and whatever
// was at <path> before is untouched; SIGTERM, SIGINT and SIGHUP remove it too, and the
// temporaries that runs killed outright left beside <path> are removed when the next
// run writes there.
#include <filesystem>
#include <string>

namespace backsweep {

class AtomicFile {
 public:
  explicit AtomicFile(std::filesystem::path target);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  const std::filesystem::path& temporary() const { return temporary_; }
  void commit();  // throws std::runtime_error if the rename fails

 private:
  std::filesystem::path target_, temporary_;
  bool committed_ = false;
  int signal_ticket_ = -1;
};

}  // namespace backsweep
