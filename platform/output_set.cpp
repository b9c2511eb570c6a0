#include "platform/output_set.hpp"

#include <fcntl.h>
#include <stdio.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iostream>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include "platform/signal_cleanup.hpp"
#include "platform/stale_files.hpp"

namespace backsweep {

namespace fs = std::filesystem;

namespace {

// An exclusive flock on a folder, held while it lives: commits into one parent folder
// take turns. Where the folder cannot be opened, nothing is locked.
class FolderLock {
 public:
  explicit FolderLock(const fs::path& folder) : fd_(::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)) {
    while (fd_ >= 0 && ::flock(fd_, LOCK_EX) != 0 && errno == EINTR) {
    }
  }
  ~FolderLock() {
    if (fd_ >= 0) ::close(fd_);
  }
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;

 private:
  int fd_;
};

void remove_stale(const fs::path& folder, const std::string& prefix) {
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(folder, error))
    if (detail::left_by_dead_process(entry.path().filename().string(), prefix)) fs::remove_all(entry.path(), error);
}

// True when `folder` is the working directory or holds it.
bool holds_working_directory(const fs::path& folder) {
  std::error_code error;
  const fs::path here = fs::canonical(fs::current_path(error), error);
  if (error) return false;
  return std::mismatch(folder.begin(), folder.end(), here.begin(), here.end()).first == folder.end();
}

// False where `folder` exists on another device than its parent (a mount point).
bool same_device(const fs::path& folder) {
  struct stat inside, outside;
  if (::stat(folder.c_str(), &inside) != 0) return true;  // not there yet: made in the parent
  return ::stat(folder.parent_path().c_str(), &outside) == 0 && inside.st_dev == outside.st_dev;
}

void sync(const fs::path& path, int flags) {
  const int fd = ::open(path.c_str(), flags | O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error("cannot open " + path.string() + ": " + std::strerror(errno));
  const int status = ::fsync(fd);
  const int error = errno;
  ::close(fd);
  if (status != 0) throw std::runtime_error("cannot sync " + path.string() + ": " + std::strerror(error));
}

// fsyncs what this run wrote (earlier outputs are on disk already), then the folder.
void sync_written(const fs::path& staging, const std::vector<fs::path>& written) {
  for (const fs::path& name : written) {
    const fs::path path = staging / name;
    if (fs::is_directory(fs::symlink_status(path)))
      for (const auto& entry : fs::recursive_directory_iterator(path))
        if (!entry.is_symlink()) sync(entry.path(), entry.is_directory() ? O_DIRECTORY : 0);
    if (!fs::is_symlink(fs::symlink_status(path))) sync(path, fs::is_directory(path) ? O_DIRECTORY : 0);
  }
  sync(staging, O_DIRECTORY);
}

// Puts at `to` the same files as at `from`, by hard links: the earlier outputs this run
// keeps, at no cost in time or space. Throws where a link cannot be made.
void link_tree(const fs::path& from, const fs::path& to) {
  const fs::file_status status = fs::symlink_status(from);
  if (fs::is_symlink(status)) {
    fs::copy_symlink(from, to);
  } else if (fs::is_directory(status)) {
    fs::create_directory(to);
    for (const auto& entry : fs::directory_iterator(from)) link_tree(entry.path(), to / entry.path().filename());
  } else {
    fs::create_hard_link(from, to);  // a FIFO or socket too: the link keeps it as it is
  }
}

// An output may replace an earlier one of its kind only: a folder a file, never.
void check_replacements(const fs::path& staging, const fs::path& folder) {
  for (const auto& entry : fs::directory_iterator(staging)) {
    const fs::path earlier = folder / entry.path().filename();
    const fs::file_status status = fs::symlink_status(earlier);
    if (!fs::exists(status)) continue;
    if (fs::is_directory(status) != entry.is_directory())
      throw std::runtime_error("cannot write " + earlier.string() + ": a " +
                               (fs::is_directory(status) ? "folder" : "file") + " of that name is in the way");
  }
}

// Swaps two paths in one step; false where this file system or mount cannot.
bool exchange(const fs::path& a, const fs::path& b) {
  if (::renameat2(AT_FDCWD, a.c_str(), AT_FDCWD, b.c_str(), RENAME_EXCHANGE) == 0) return true;
  for (int refused : {EINVAL, ENOSYS, ENOTSUP, EXDEV, EBUSY, EPERM, EACCES})
    if (errno == refused) return false;
  throw std::runtime_error("cannot move " + a.string() + " to " + b.string() + ": " + std::strerror(errno));
}

// Moves each output this run wrote into `folder` on its own, each atomically (a folder
// that replaces an earlier one is swapped with it; the earlier one stays in `staging`).
void move_written(const fs::path& staging, const fs::path& folder, const std::vector<fs::path>& written) {
  for (const fs::path& name : written) {
    const fs::path from = staging / name, to = folder / name;
    if (fs::is_directory(from) && fs::is_directory(fs::symlink_status(to))) {
      if (exchange(from, to)) continue;
      fs::remove_all(to);
    }
    fs::rename(from, to);
  }
}

// The new folder takes the old one's permissions and group (best effort).
void copy_folder_access(const fs::path& from, const fs::path& to) {
  struct stat old;
  if (::stat(from.c_str(), &old) != 0) return;
  (void)::chmod(to.c_str(), old.st_mode & 07777);
  (void)::chown(to.c_str(), uid_t(-1), old.st_gid);
}

}  // namespace

OutputSet::OutputSet(fs::path folder) {
  folder = fs::absolute(folder);
  folder_ = fs::exists(folder) ? fs::canonical(folder) : fs::weakly_canonical(folder);
  if (!folder_.has_filename()) folder_ = folder_.parent_path();  // "results/" is "results"
  const std::string pid = std::to_string(::getpid());
  std::string prefix = ".";  // appended, not concatenated: GCC 12 warns falsely (-Wrestrict) on "." + s
  prefix += folder_.filename().string();
  prefix += ".set-";
  const fs::path parent = folder_.parent_path();
  fs::create_directories(parent);
  swap_ = !holds_working_directory(folder_) && same_device(folder_);
  if (swap_) {
    remove_stale(parent, prefix);
    staging_ = parent / (prefix + pid);
    std::error_code error;
    fs::remove_all(staging_, error);
    swap_ = fs::create_directory(staging_, error) && !error;  // a parent that cannot be written: inside
  }
  if (!swap_) {
    fs::create_directories(folder_);
    remove_stale(folder_, ".set-");
    staging_ = folder_ / (".set-" + pid);
    fs::remove_all(staging_);
    fs::create_directory(staging_);
  }
  signal_ticket_ = detail::remove_on_signal(staging_.string(), true);
}

OutputSet::~OutputSet() {
  std::error_code ignored;
  fs::remove_all(staging_, ignored);
  detail::release_on_signal(signal_ticket_);
}

void OutputSet::commit() {
  // Two runs committing into one folder at once would each link in the earlier outputs,
  // and the later swap would drop what the other wrote: they take turns.
  const FolderLock turn(folder_.parent_path());
  bool swapped = false;
  try {
    if (fs::exists(folder_) && !fs::is_directory(folder_))
      throw std::runtime_error("the output folder " + folder_.string() + " is a file");
    check_replacements(staging_, folder_);
    std::vector<fs::path> written;
    for (const auto& entry : fs::directory_iterator(staging_)) written.push_back(entry.path().filename());
    if (swap_ && fs::exists(folder_)) {
      try {  // earlier outputs, but not what killed runs left behind
        for (const auto& entry : fs::directory_iterator(folder_)) {
          const fs::path name = entry.path().filename();
          if (!fs::exists(fs::symlink_status(staging_ / name)) && !detail::dead_temporary(name.string()))
            link_tree(entry.path(), staging_ / name);
        }
      } catch (const fs::filesystem_error&) {
        swap_ = false;  // a file that cannot be linked: it stays where it is, and outputs move in one by one
      }
    }
    sync_written(staging_, written);
    if (swap_ && !fs::exists(folder_)) {
      fs::rename(staging_, folder_);
      swapped = true;
    } else if (swap_) {
      copy_folder_access(folder_, staging_);
      swapped = exchange(staging_, folder_);
    }
    if (!swapped) {
      move_written(staging_, folder_, written);
      sync(folder_, O_DIRECTORY);
    }
  } catch (const fs::filesystem_error& error) {
    throw std::runtime_error(error.what());
  }
  try {  // the set is in place: failing to sync its parent is no reason to fail the run
    sync(folder_.parent_path(), O_DIRECTORY);
  } catch (const std::exception& error) {
    std::cerr << "warning: " << error.what() << '\n';
  }
}

}  // namespace backsweep
