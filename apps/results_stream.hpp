#pragma once
// Where a command prints its results for people: stdout, so that `> result.txt` keeps
// them. With --json stdout holds the JSON object alone, and they go to stderr beside the
// logs, progress and warnings (which always do).
#include <cstdio>
#include <iostream>

namespace backsweep::apps {

inline std::ostream& results_stream(bool json) { return json ? std::cerr : std::cout; }
inline std::FILE* results_file(bool json) { return json ? stderr : stdout; }

}  // namespace backsweep::apps
