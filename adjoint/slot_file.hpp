#pragma once
// A level of checkpoint slots kept outside memory (checkpoint_file.hpp: a scratch file under
// the output folder): float64 values, `width` per slot. Errors (a full disk) are exceptions.
#include <cstddef>
#include <functional>
#include <memory>

namespace backsweep {

class SlotFile {
 public:
  virtual ~SlotFile() = default;
  virtual void write(std::size_t slot, const double* values) = 0;
  virtual void read(std::size_t slot, double* values) = 0;
};

// Opens a slot file of `slots` slots of `width` values.
using SlotFileOpener = std::function<std::unique_ptr<SlotFile>(std::size_t slots, std::size_t width)>;

}  // namespace backsweep
