#include "io/checkpoint_file.hpp"

#include <hdf5.h>
#include <unistd.h>

#include <atomic>
#include <optional>
#include <stdexcept>
#include <string>

#include "io/detail/hdf5_handle.hpp"
#include "io/detail/signal_cleanup.hpp"

namespace backsweep {

namespace {

using detail::Hdf5Handle;

class CheckpointFile final : public SlotFile {
 public:
  CheckpointFile(std::filesystem::path path, std::size_t slots, std::size_t width)
      : path_(std::move(path)), index_(detail::remove_on_signal(path_.string())), width_(width) {
    try {
      file_.emplace(H5Fcreate(path_.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose,
                    "create the checkpoint file " + path_.string());
      const hsize_t shape[2] = {hsize_t(slots), hsize_t(width)}, chunk[2] = {1, hsize_t(width)};
      Hdf5Handle space(H5Screate_simple(2, shape, nullptr), H5Sclose, "shape checkpoint slots");
      Hdf5Handle properties(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, "set up checkpoint slots");
      if (H5Pset_chunk(properties, 2, chunk) < 0) throw std::runtime_error("HDF5: cannot chunk slots");
      slots_.emplace(H5Dcreate2(*file_, "slots", H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, properties,
                                H5P_DEFAULT),
                     H5Dclose, "create checkpoint slots in " + path_.string());
    } catch (...) {
      remove();
      throw;
    }
  }
  ~CheckpointFile() override { remove(); }

  void write(std::size_t slot, const double* values) override { transfer(slot, values, true); }
  void read(std::size_t slot, double* values) override {
    transfer(slot, values, false);
  }

 private:
  void transfer(std::size_t slot, const double* values, bool writing) {
    Hdf5Handle file_space(H5Dget_space(*slots_), H5Sclose, "select a checkpoint slot");
    const hsize_t start[2] = {hsize_t(slot), 0}, count[2] = {1, hsize_t(width_)};
    H5Sselect_hyperslab(file_space, H5S_SELECT_SET, start, nullptr, count, nullptr);
    Hdf5Handle memory_space(H5Screate_simple(2, count, nullptr), H5Sclose, "shape a slot");
    const herr_t status =
        writing ? H5Dwrite(*slots_, H5T_NATIVE_DOUBLE, memory_space, file_space, H5P_DEFAULT, values)
                : H5Dread(*slots_, H5T_NATIVE_DOUBLE, memory_space, file_space, H5P_DEFAULT,
                          const_cast<double*>(values));
    if (status < 0)
      throw std::runtime_error("HDF5: cannot " + std::string(writing ? "write" : "read") +
                               " checkpoint slot " + std::to_string(slot) + " of " + path_.string());
  }
  void remove() {
    slots_.reset();
    file_.reset();
    std::error_code ignored;
    std::filesystem::remove(path_, ignored);
    detail::release_on_signal(index_);
  }

  std::filesystem::path path_;
  int index_;
  std::size_t width_;
  std::optional<Hdf5Handle> file_, slots_;
};

}  // namespace

SlotFileOpener checkpoint_files_in(std::filesystem::path folder) {
  return [folder](std::size_t slots, std::size_t width) -> std::unique_ptr<SlotFile> {
    static std::atomic<int> counter{0};
    std::filesystem::create_directories(folder);
    const std::string name = ".backsweep-checkpoints-" + std::to_string(::getpid()) + "-" +
                             std::to_string(counter++) + ".h5";
    return std::make_unique<CheckpointFile>(folder / name, slots, width);
  };
}

}  // namespace backsweep
