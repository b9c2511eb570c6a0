#include "io/output_set.hpp"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include "io/detail/signal_cleanup.hpp"

namespace backsweep {

namespace fs = std::filesystem;

namespace {

std::string staging_prefix(const fs::path& folder) {
  std::string prefix = ".";  // appended, not concatenated: GCC 12 warns falsely (-Wrestrict) on "." + s
  prefix += folder.filename().string();
  return prefix += ".set-";
}

// Removes staging folders of processes that no longer run (a run killed by SIGKILL).
void remove_stale_staging(const fs::path& folder) {
  const std::string prefix = staging_prefix(folder);
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(folder.parent_path(), error)) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with(prefix)) continue;
    const std::string digits = name.substr(prefix.size());
    if (digits.empty() || digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos) continue;
    if (::kill(pid_t(std::stol(digits)), 0) != 0 && errno == ESRCH) fs::remove_all(entry.path(), error);
  }
}

// True when `folder` is the working directory or holds it.
bool holds_working_directory(const fs::path& folder) {
  std::error_code error;
  const fs::path here = fs::canonical(fs::current_path(error), error);
  if (error) return false;
  auto [f, h] = std::mismatch(folder.begin(), folder.end(), here.begin(), here.end());
  return f == folder.end();
}

void sync(const fs::path& path, int flags) {
  const int fd = ::open(path.c_str(), flags | O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error("cannot open " + path.string() + ": " + std::strerror(errno));
  const int status = ::fsync(fd);
  const int error = errno;
  ::close(fd);
  if (status != 0) throw std::runtime_error("cannot sync " + path.string() + ": " + std::strerror(error));
}

void sync_tree(const fs::path& folder) {
  for (const auto& entry : fs::recursive_directory_iterator(folder)) {
    if (entry.is_symlink()) continue;
    sync(entry.path(), entry.is_directory() ? O_DIRECTORY : 0);
  }
  sync(folder, O_DIRECTORY);
}

// Puts at `to` the same files as at `from`, by hard links (a copy where the file system
// has none): the earlier outputs this run keeps, at no cost in time or space.
void link_tree(const fs::path& from, const fs::path& to) {
  const fs::file_status status = fs::symlink_status(from);
  if (fs::is_symlink(status)) {
    fs::copy_symlink(from, to);
  } else if (fs::is_directory(status)) {
    fs::create_directory(to);
    for (const auto& entry : fs::directory_iterator(from)) link_tree(entry.path(), to / entry.path().filename());
  } else if (fs::is_regular_file(status)) {
    std::error_code error;
    fs::create_hard_link(from, to, error);
    if (error) fs::copy_file(from, to);
  } else {
    throw std::runtime_error(from.string() + " is neither a file nor a folder; move it out of the output folder");
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

// Swaps two paths in one step; false where the file system cannot.
bool exchange(const fs::path& a, const fs::path& b) {
  if (::renameat2(AT_FDCWD, a.c_str(), AT_FDCWD, b.c_str(), RENAME_EXCHANGE) == 0) return true;
  if (errno == EINVAL || errno == ENOSYS || errno == ENOTSUP) return false;
  throw std::runtime_error("cannot move " + a.string() + " to " + b.string() + ": " + std::strerror(errno));
}

// Moves each output into `folder` on its own, each atomically (a folder that replaces
// an earlier one is swapped with it; the earlier one stays behind in the staging folder).
void move_entries(const fs::path& staging, const fs::path& folder) {
  std::vector<fs::path> names;
  for (const auto& entry : fs::directory_iterator(staging)) names.push_back(entry.path().filename());
  for (const fs::path& name : names) {
    const fs::path from = staging / name, to = folder / name;
    if (fs::is_directory(from) && fs::is_directory(fs::symlink_status(to))) {
      if (exchange(from, to)) continue;
      fs::remove_all(to);
    }
    fs::rename(from, to);
  }
}

}  // namespace

OutputSet::OutputSet(fs::path folder) {
  folder = fs::absolute(folder);
  folder_ = fs::exists(folder) ? fs::canonical(folder) : fs::weakly_canonical(folder);
  if (fs::exists(folder_) && !fs::is_directory(folder_))
    throw std::runtime_error("the output folder " + folder_.string() + " is a file");
  fs::create_directories(folder_.parent_path());
  remove_stale_staging(folder_);
  staging_ = folder_.parent_path() / (staging_prefix(folder_) + std::to_string(::getpid()));
  fs::remove_all(staging_);
  fs::create_directory(staging_);
  signal_ticket_ = detail::remove_on_signal(staging_.string(), true);
}

OutputSet::~OutputSet() {
  std::error_code ignored;
  fs::remove_all(staging_, ignored);
  detail::release_on_signal(signal_ticket_);
}

void OutputSet::commit() {
  try {
    if (fs::exists(folder_) && !fs::is_directory(folder_))
      throw std::runtime_error("the output folder " + folder_.string() + " is a file");
    check_replacements(staging_, folder_);
    const bool swap = fs::exists(folder_) && !holds_working_directory(folder_);
    if (swap)
      for (const auto& entry : fs::directory_iterator(folder_))
        if (!fs::exists(fs::symlink_status(staging_ / entry.path().filename())))
          link_tree(entry.path(), staging_ / entry.path().filename());
    sync_tree(staging_);
    if (!fs::exists(folder_)) {
      fs::rename(staging_, folder_);
    } else if (!swap || !exchange(staging_, folder_)) {
      move_entries(staging_, folder_);
      sync(folder_, O_DIRECTORY);
    }
    sync(folder_.parent_path(), O_DIRECTORY);
  } catch (const fs::filesystem_error& error) {
    throw std::runtime_error(error.what());
  }
}

}  // namespace backsweep
