#include "platform/stale_files.hpp"

#include <signal.h>

#include <algorithm>
#include <cerrno>
#include <string>

namespace backsweep::detail {

bool left_by_dead_process(std::string_view name, std::string_view prefix) {
  if (!name.starts_with(prefix)) return false;
  const std::string_view rest = name.substr(prefix.size());
  const std::size_t digits = std::min(rest.find_first_not_of("0123456789"), rest.size());
  if (digits == 0 || digits > 9) return false;
  const pid_t pid = pid_t(std::stol(std::string(rest.substr(0, digits))));
  return ::kill(pid, 0) != 0 && errno == ESRCH;
}

bool dead_temporary(std::string_view name) {
  if (const std::size_t at = name.rfind(".tmp-"); at != std::string_view::npos)
    return left_by_dead_process(name, name.substr(0, at + 5));
  return left_by_dead_process(name, ".backsweep-checkpoints-") || left_by_dead_process(name, ".set-");
}

}  // namespace backsweep::detail
