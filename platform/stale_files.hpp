#pragma once
// What a run leaves beside its outputs while it writes them carries its pid after a
// known prefix: "<name>.tmp-<pid>", ".<folder>.set-<pid>", ".set-<pid>",
// ".backsweep-checkpoints-<pid>-<k>.bin". Those of processes that no longer run (killed
// outright: no handler saw it) are garbage for the next run to remove.
#include <string_view>

namespace backsweep::detail {

// Whether `name` is `prefix` then the pid of a process that no longer runs (then anything).
bool left_by_dead_process(std::string_view name, std::string_view prefix);

// Whether `name` is any of the temporaries above, left by a process that no longer runs.
bool dead_temporary(std::string_view name);

}  // namespace backsweep::detail
