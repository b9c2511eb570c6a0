#pragma once
// NativeLibrary: C++ (or CUDA) source compiled at run time by the system compiler (or
// nvcc) into a shared library, kept in a cache folder and loaded (Devito builds its PDE
// operators this way).
//
// The cache entry of a source is named by a hash of the source, the compiler (its path,
// size and time), the flags and the processor's features (-march=native); beside the
// library lies a checksum of its bytes, so a corrupted or truncated entry is built again.
// A build goes to a file of its own and appears by rename: two processes building one
// entry at once both succeed, and a reader never sees half a library. Deleting the folder
// at any time costs a rebuild.
// A compiler that is missing, fails, is killed or runs past its time limit, and a
// folder that cannot be written, end in NativeLibraryError saying what happened; callers
// fall back to code that needs no compiler.
#include <chrono>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace backsweep {

struct NativeLibraryError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct CompilerOptions {
  std::filesystem::path cache;   // empty: default_kernel_cache()
  std::string compiler;          // empty: $BACKSWEEP_CXX, else the compiler that built backsweep
  std::vector<std::string> flags = default_flags();
  std::string language = "c++";  // the source's language, as -x names it (nvcc: "cu")
  std::chrono::seconds time_limit{300};

  static std::vector<std::string> default_flags();
};

// $BACKSWEEP_KERNEL_CACHE, else $XDG_CACHE_HOME/backsweep/kernels, else
// ~/.cache/backsweep/kernels, else a folder of this user's under the temporary folder.
std::filesystem::path default_kernel_cache();

class NativeLibrary {
 public:
  // The library built from `source`: from the cache, or compiled now (and cached).
  static NativeLibrary load(const std::string& source, const CompilerOptions& options);

  // The address of an exported (extern "C") symbol; NativeLibraryError where missing.
  void* symbol(const char* name) const;

  const std::filesystem::path& file() const { return file_; }
  double compile_seconds() const { return compile_seconds_; }  // 0 when found in the cache

 private:
  std::shared_ptr<void> handle_;
  std::filesystem::path file_;
  double compile_seconds_ = 0;
};

}  // namespace backsweep
