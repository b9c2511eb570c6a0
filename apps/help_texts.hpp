#pragma once
// What `backsweep <command> --help` says below the options: the config keys each command
// reads (docs/config.md has them all), what it prints and writes, its exit codes.

namespace backsweep::apps {

extern const char* const kSimulateHelp;
extern const char* const kGradientHelp;
extern const char* const kFitHelp;
extern const char* const kLyapunovHelp;

}  // namespace backsweep::apps
