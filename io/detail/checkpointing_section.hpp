#pragma once
// [checkpointing], read the same way by every command that takes gradients.
#include "adjoint/gradient_problem.hpp"
#include <string>

#include "io/detail/toml_reader.hpp"

namespace backsweep::detail {

// schedule = auto | store_all | revolve | online | two_level, slots or memory (a byte size
// such as "64MiB"), disk (a byte size), storage = float64 | float32. Absent: the defaults
// of CheckpointOptions. The disk file is for the command to set (it knows the folder).
// A disk budget opens its checkpoint file in `output_dir`.
CheckpointOptions read_checkpointing(const TomlSection& root, const std::string& output_dir);

}  // namespace backsweep::detail
