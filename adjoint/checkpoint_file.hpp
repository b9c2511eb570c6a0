#pragma once
// The disk level of the checkpoint store: one file in the output folder, slot after slot,
// each `width` float64 values in the machine's byte order, so a slot is one contiguous
// write or read. The file is scratch, read back by the run that wrote it and by nothing
// else. It is removed when the gradient ends, whether it succeeded or failed, and when
// the process is stopped by SIGTERM, SIGINT or SIGHUP (a handler unlinks the files still
// open, then lets the signal end the process as it would have).
#include <filesystem>

#include "adjoint/slot_file.hpp"

namespace backsweep {

// Opens checkpoint files in `folder` (created if missing), named
// ".backsweep-checkpoints-<pid>-<k>.bin". Errors throw std::runtime_error.
SlotFileOpener checkpoint_files_in(std::filesystem::path folder);

}  // namespace backsweep
