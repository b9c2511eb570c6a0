#pragma once
// [checkpointing], read the same way by every command that takes gradients.
#include <cstddef>
#include <cstdint>
#include <string>

#include "io/config/checkpointing_config.hpp"
#include "io/config/toml_reader.hpp"

namespace backsweep::detail {

// schedule = auto | store_all | revolve | online | two_level, slots or memory (a byte size
// such as "64MiB"), disk (a byte size), storage = float64 | float32. Absent: the defaults
// of CheckpointOptions. A disk budget opens its checkpoint file in `output_dir`.
// Sets machine_memory: a store_all that cannot fit is refused before the run. A disk
// budget smaller than one state (of `state_values` values) is a config error whichever
// schedule auto picks.
CheckpointingConfig read_checkpointing(const TomlSection& root, const std::string& output_dir,
                                       std::size_t state_values);

// The physical memory of this machine in bytes (0 when unknown).
std::uint64_t machine_memory();

}  // namespace backsweep::detail
