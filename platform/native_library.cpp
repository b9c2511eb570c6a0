#include "platform/native_library.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

#include "platform/atomic_file.hpp"

#ifndef BACKSWEEP_SYSTEM_CXX
#define BACKSWEEP_SYSTEM_CXX "c++"
#endif

extern char** environ;

namespace backsweep {

namespace fs = std::filesystem;

namespace {

std::uint64_t fnv1a(std::string_view bytes, std::uint64_t hash) {
  for (const unsigned char byte : bytes) hash = (hash ^ byte) * 0x100000001b3ULL;
  return hash;
}

std::string hex(std::uint64_t value) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(value));
  return text;
}

// Two independent 64-bit hashes: a 128-bit name.
std::string digest(std::string_view bytes) {
  return hex(fnv1a(bytes, 0xcbf29ce484222325ULL)) + hex(fnv1a(bytes, 0x84222325cbf29ce4ULL));
}

std::string read_all(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void write_all(const fs::path& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), std::streamsize(bytes.size()));
  out.close();
  if (!out) throw NativeLibraryError("cannot write " + path.string());
}

// The compiler's path, found on PATH where it names no folder.
fs::path find_compiler(const std::string& name) {
  if (name.find('/') != std::string::npos) return name;
  const char* path = std::getenv("PATH");
  std::istringstream folders(path ? path : "/usr/bin:/bin");
  for (std::string folder; std::getline(folders, folder, ':');)
    if (!folder.empty() && ::access((fs::path(folder) / name).c_str(), X_OK) == 0) return fs::path(folder) / name;
  throw NativeLibraryError("compiler '" + name + "' not found on PATH");
}

// What tells one compiler from another cheaply: its path, size and modification time.
std::string identity_of(const fs::path& compiler) {
  struct stat info {};
  if (::stat(compiler.c_str(), &info) != 0 || !(info.st_mode & S_IXUSR))
    throw NativeLibraryError("compiler '" + compiler.string() + "' not found or not executable");
  return compiler.string() + " " + std::to_string(info.st_size) + " " + std::to_string(info.st_mtime);
}

// What -march=native builds for: the processor's feature flags, so a cache shared by
// machines of different processors (a home folder on a cluster) keeps a library for each.
std::string processor_identity() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);)
    if (line.rfind("flags", 0) == 0) return line;
  return "unknown processor";
}

// The first lines of a compiler's messages.
std::string head(const std::string& text, std::size_t lines = 8) {
  std::size_t end = 0;
  for (std::size_t i = 0; i < lines && end != std::string::npos; ++i) end = text.find('\n', end + (i > 0));
  return text.substr(0, end);
}

// Runs argv with its output into `log`; throws where it fails, dies or overruns.
void run_compiler(const std::vector<std::string>& argv, const fs::path& log, std::chrono::seconds limit) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  pid_t child = 0;
  const int spawned = posix_spawn(&child, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) throw NativeLibraryError("cannot run the compiler '" + argv[0] + "'");
  const auto deadline = std::chrono::steady_clock::now() + limit;
  int status = 0;
  while (::waitpid(child, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(child, SIGKILL);
      ::waitpid(child, &status, 0);
      throw NativeLibraryError("the compiler ran past its limit of " + std::to_string(limit.count()) + " s");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (WIFSIGNALED(status))
    throw NativeLibraryError("the compiler was killed by signal " + std::to_string(WTERMSIG(status)));
  if (WEXITSTATUS(status) != 0)
    throw NativeLibraryError("the compiler failed (exit " + std::to_string(WEXITSTATUS(status)) + "): " +
                             head(read_all(log)));
}

// Never unloaded: a kernel on OpenMP threads brings libgomp in, whose idle threads would
// run unmapped code after the last kernel's dlclose.
std::shared_ptr<void> open_library(const fs::path& file) {
  void* handle = ::dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (!handle) {
    const char* why = ::dlerror();
    throw NativeLibraryError("cannot load " + file.string() + ": " + (why ? why : "unknown error"));
  }
  return {handle, [](void*) {}};
}

}  // namespace

std::vector<std::string> CompilerOptions::default_flags() {
  // Contraction off: a compiled point computes what the interpreter does, bitwise.
  return {"-std=c++17", "-O3", "-march=native", "-fPIC", "-shared", "-fopenmp", "-ffp-contract=off",
          "-fno-math-errno", "-w"};
}

fs::path default_kernel_cache() {
  if (const char* set = std::getenv("BACKSWEEP_KERNEL_CACHE"); set && *set) return set;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return fs::path(xdg) / "backsweep" / "kernels";
  if (const char* home = std::getenv("HOME"); home && *home) return fs::path(home) / ".cache" / "backsweep" / "kernels";
  return fs::temp_directory_path() / ("backsweep-kernels-" + std::to_string(::getuid()));
}

NativeLibrary NativeLibrary::load(const std::string& source, const CompilerOptions& options) {
  const char* chosen = std::getenv("BACKSWEEP_CXX");
  const fs::path compiler = find_compiler(!options.compiler.empty() ? options.compiler
                                          : chosen && *chosen      ? chosen
                                                                   : BACKSWEEP_SYSTEM_CXX);
  std::string key_text = source + "\n" + identity_of(compiler) + "\n" + processor_identity();
  for (const std::string& flag : options.flags) key_text += " " + flag;
  key_text += " -x " + options.language;
  const fs::path folder = options.cache.empty() ? default_kernel_cache() : options.cache;
  const std::string key = digest(key_text);
  NativeLibrary library;
  library.file_ = folder / (key + ".so");
  const fs::path checksum = folder / (key + ".sum");

  std::error_code missing;
  if (fs::exists(library.file_, missing) && fs::exists(checksum, missing) &&
      read_all(checksum) == digest(read_all(library.file_))) {
    try {
      library.handle_ = open_library(library.file_);
      return library;
    } catch (const NativeLibraryError&) {  // whole but unloadable: build it again
    }
  }
  std::error_code error;
  fs::create_directories(folder, error);
  if (error) throw NativeLibraryError("cannot create the kernel cache " + folder.string() + ": " + error.message());
  const auto start = std::chrono::steady_clock::now();
  try {
    AtomicFile code(folder / (key + ".cpp")), built(library.file_), sum(checksum), log(folder / (key + ".log"));
    write_all(code.temporary(), source);
    std::vector<std::string> argv{compiler.string()};
    argv.insert(argv.end(), options.flags.begin(), options.flags.end());
    argv.insert(argv.end(), {"-x", options.language, code.temporary().string(), "-o", built.temporary().string()});
    run_compiler(argv, log.temporary(), options.time_limit);
    write_all(sum.temporary(), digest(read_all(built.temporary())));
    built.commit();
    sum.commit();
    code.commit();
  } catch (const NativeLibraryError&) {
    throw;
  } catch (const std::exception& e) {
    throw NativeLibraryError("cannot write to the kernel cache " + folder.string() + ": " + e.what());
  }
  library.compile_seconds_ =
      std::max(1e-9, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  library.handle_ = open_library(library.file_);
  return library;
}

void* NativeLibrary::symbol(const char* name) const {
  void* address = ::dlsym(handle_.get(), name);
  if (!address) throw NativeLibraryError(file_.string() + " exports no '" + name + "'");
  return address;
}

}  // namespace backsweep
