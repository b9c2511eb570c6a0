#pragma once
namespace backsweep::apps {
inline constexpr int kExitOk = 0;         // success
inline constexpr int kExitRunFailed = 1;  // the computation or writing a result failed
inline constexpr int kExitBadInput = 2;   // bad config, data or command line
}  // namespace backsweep::apps
