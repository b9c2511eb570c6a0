#pragma once
// Files a run must not leave behind if SIGTERM, SIGINT or SIGHUP stops it (temporaries
// of results, disk checkpoints): a handler unlinks those registered now, then lets the
// signal end the process as it would have.
#include <string>

namespace backsweep::detail {

// Registers `path` for removal on those signals; the returned ticket releases it.
int remove_on_signal(const std::string& path);
void release_on_signal(int ticket);

}  // namespace backsweep::detail
