#pragma once
// Files a run must not leave behind if SIGTERM, SIGINT or SIGHUP stops it (temporaries
// of results, the staging folder of an output set, disk checkpoints): a handler removes
// those registered now, then lets the signal end the process as it would have. Where a
// handler was there before ours (the Python interpreter's), the signal is passed to it and
// nothing is removed: the process goes on, and the run removes its files itself.
#include <string>

namespace backsweep::detail {

// Registers `path` (a file, or with `tree` a folder and all it holds) for removal on
// those signals; the returned ticket releases it.
int remove_on_signal(const std::string& path, bool tree = false);
void release_on_signal(int ticket);

// While on (platform/interrupt.hpp), SIGINT asks the run to stop and removes nothing.
void sigint_interrupts(bool on);

}  // namespace backsweep::detail
