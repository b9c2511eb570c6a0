#include "io/config/field_file_readers.hpp"

#include <atomic>

namespace backsweep {
namespace {
std::atomic<VtiReader> installed{nullptr};
}  // namespace

void set_vti_reader(VtiReader reader) { installed.store(reader); }
VtiReader vti_reader() { return installed.load(); }

}  // namespace backsweep
