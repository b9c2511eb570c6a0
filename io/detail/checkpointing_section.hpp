#pragma once
// [checkpointing], read the same way by every command that takes gradients.
#include "adjoint/gradient_problem.hpp"
#include "io/detail/toml_reader.hpp"

namespace backsweep::detail {

// schedule = auto | store_all | revolve, slots or memory (a byte size such as "64MiB"),
// storage = float64 | float32. Absent: the defaults of CheckpointOptions.
CheckpointOptions read_checkpointing(const TomlSection& root);

}  // namespace backsweep::detail
