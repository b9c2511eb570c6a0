#pragma once
// Runs the real backsweep program (BACKSWEEP_CLI) in a working directory and captures
// its exit code, stdout and stderr.
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <doctest/doctest.h>

struct CliRun {
  int exit_code;
  std::string out, err;
};

// A scratch folder for one test program, named after it and the process.
inline std::filesystem::path scratch_folder(const std::string& name) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("backsweep_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir;
}

// `launcher` goes before the program ("mpirun -np 2 ").
inline CliRun run_cli(const std::string& arguments, const std::filesystem::path& working_dir,
                      const std::string& launcher = "") {
  const std::filesystem::path err = working_dir / "stderr.txt";
  const std::string command = "cd " + working_dir.string() + " && " + launcher + BACKSWEEP_CLI + " " +
                              arguments + " 2>" + err.string();
  FILE* pipe = ::popen(command.c_str(), "r");
  REQUIRE(pipe);
  std::string out;
  std::array<char, 4096> buffer;
  while (std::size_t n = std::fread(buffer.data(), 1, buffer.size(), pipe)) out.append(buffer.data(), n);
  const int status = ::pclose(pipe);
  std::ifstream in(err);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out,
          {std::istreambuf_iterator<char>(in), {}}};
}
