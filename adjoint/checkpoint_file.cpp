#include "adjoint/checkpoint_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

#include "platform/signal_cleanup.hpp"

namespace backsweep {

namespace {

class CheckpointFile final : public SlotFile {
 public:
  CheckpointFile(std::filesystem::path path, std::size_t width)
      : path_(std::move(path)), ticket_(detail::remove_on_signal(path_.string())), bytes_(width * sizeof(double)) {
    descriptor_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);  // never another's
    if (descriptor_ < 0) {
      const std::string why = std::strerror(errno);
      detail::release_on_signal(ticket_);
      throw std::runtime_error("cannot create the checkpoint file " + path_.string() + ": " + why);
    }
  }
  ~CheckpointFile() override {
    ::close(descriptor_);
    std::error_code ignored;
    std::filesystem::remove(path_, ignored);
    detail::release_on_signal(ticket_);
  }

  void write(std::size_t slot, const double* values) override {
    transfer(slot, const_cast<double*>(values), true);
  }
  void read(std::size_t slot, double* values) override { transfer(slot, values, false); }

 private:
  // The whole slot, resuming after a partial transfer or an interrupted call.
  void transfer(std::size_t slot, double* values, bool writing) {
    auto* bytes = reinterpret_cast<char*>(values);
    const off_t start = off_t(slot * bytes_);
    for (std::size_t done = 0; done < bytes_;) {
      const ssize_t moved = writing ? ::pwrite(descriptor_, bytes + done, bytes_ - done, start + off_t(done))
                                    : ::pread(descriptor_, bytes + done, bytes_ - done, start + off_t(done));
      if (moved < 0 && errno == EINTR) continue;
      if (moved <= 0)
        throw std::runtime_error("cannot " + std::string(writing ? "write" : "read") + " checkpoint slot " +
                                 std::to_string(slot) + " of " + path_.string() + ": " +
                                 (moved < 0 ? std::strerror(errno) : "the file ends there"));
      done += std::size_t(moved);
    }
  }

  std::filesystem::path path_;
  int ticket_;
  std::size_t bytes_;
  int descriptor_ = -1;
};

}  // namespace

SlotFileOpener checkpoint_files_in(std::filesystem::path folder) {
  return [folder](std::size_t, std::size_t width) -> std::unique_ptr<SlotFile> {
    static std::atomic<int> counter{0};
    std::filesystem::create_directories(folder);
    const std::string name = ".backsweep-checkpoints-" + std::to_string(::getpid()) + "-" +
                             std::to_string(counter++) + ".bin";
    return std::make_unique<CheckpointFile>(folder / name, width);
  };
}

}  // namespace backsweep
