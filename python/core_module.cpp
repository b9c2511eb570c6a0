// backsweep._core: the commands of the backsweep program, run in this process on a config
// (a file, or TOML text) with their results kept instead of printed, and PEtab problems
// loaded once (loaded_problem.hpp). The Python package
// (backsweep/__init__.py) turns them into result objects and exceptions.
#include <chrono>
#include <cstdint>
#include <map>
#include <new>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "apps/command_io.hpp"
#include "apps/config_commands.hpp"
#include "apps/error_report.hpp"
#include "apps/exit_codes.hpp"
#include "io/config/config_file.hpp"
#include "io/vtk/vti_reader.hpp"
#include "platform/interrupt.hpp"
#include "python/json_to_python.hpp"
#include "python/loaded_problem.hpp"
#include "python/warning_lines.hpp"

namespace nb = nanobind;
using namespace backsweep;
using namespace backsweep::apps;
using backsweep::python::to_python;

namespace {

using InputArray = nb::ndarray<const double, nb::c_contig, nb::device::cpu>;

int run_command(const std::string& command, ConfigFile file, CommandIO& io) {
  if (const ConfigCommand* found = find_config_command(command)) return found->run(std::move(file), io);
  report_error(io.error, "unknown command '", command, "'");
  return kExitBadInput;
}

// Runs `command` without the GIL. On Python's main thread (where Python handles signals
// alone), Ctrl-C stops it (KeyboardInterrupt) where it reports its progress. Returns (exit
// code, the --json object, the error ({"message", ...}, where the run failed),
// [(path, array)], [warning]) as Python values.
nb::tuple run(const std::string& command, const std::string& source, bool is_text, const std::string& name,
              const std::vector<std::string>& overrides, bool write,
              const std::map<std::string, InputArray>& initial_fields,
              const std::map<std::string, InputArray>& parameter_fields, bool on_main_thread) {
  CommandIO io;
  io.keep = true;
  io.write_outputs = write;
  for (const auto& [field, values] : initial_fields) io.initial_fields[field] = {values.data(), values.size()};
  for (const auto& [field, values] : parameter_fields) io.parameter_fields[field] = {values.data(), values.size()};
  int code = kExitOk;
  bool interrupted = false;
  std::vector<std::string> warnings;
  {
    nb::gil_scoped_release unlocked;
    const python::WarningLines::Collect collect(warnings);
    std::optional<InterruptOnSigint> sigint;
    if (on_main_thread) sigint.emplace();
    try {
      ConfigFile file = is_text ? config_from_text(source, name, overrides) : read_config_file(source, overrides);
      code = run_command(command, std::move(file), io);
    } catch (const ConfigError& error) {  // an override's, or the given arrays' (CommandIO::use_given_fields)
      report_error(io.error, error);
      code = kExitBadInput;
    } catch (const RunInterrupted&) {
      interrupted = true;
    } catch (const std::bad_alloc&) {
      report_error(io.error, "out of memory: the run needs more than this machine can give it");
      code = kExitRunFailed;
    } catch (const std::exception& error) {
      report_error(io.error, error.what());
      code = kExitRunFailed;
    }
    // A Ctrl-C a run never looked for (one without progress reports, or after its last
    // step) is still the user's: raised as Python would have.
    interrupted = interrupted || (sigint && sigint->requested());
  }
  if (interrupted) {
    PyErr_SetNone(PyExc_KeyboardInterrupt);
    throw nb::python_error();
  }
  nb::list arrays;
  for (ResultArray& array : io.arrays) {
    auto* values = new std::vector<double>(std::move(array.values));
    nb::capsule owner(values, [](void* p) noexcept { delete static_cast<std::vector<double>*>(p); });
    arrays.append(nb::make_tuple(
        array.path, nb::ndarray<nb::numpy, double>(values->data(), array.shape.size(), array.shape.data(), owner)));
  }
  const nb::object error = code == kExitOk ? nb::none() : to_python(error_json(io.error, code)["error"]);
  return nb::make_tuple(code, to_python(io.results), error, arrays, warnings);
}

// The baseline of bench/python_overhead.py: seconds per call of `command` on the file at
// `path` run `repeats` times from C++ (read, run, results kept, no files written), as a
// C++ program calling the commands would.
double seconds_per_call_in_cpp(const std::string& command, const std::string& path,
                               const std::vector<std::string>& overrides, int repeats) {
  nb::gil_scoped_release unlocked;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < repeats; ++i) {
    CommandIO io;
    io.keep = true;
    io.write_outputs = false;
    if (run_command(command, read_config_file(path, overrides), io) != kExitOk)
      throw std::runtime_error(io.error.message);
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / repeats;
}

}  // namespace

NB_MODULE(_core, module) {
  python::WarningLines::install();
  install_vti_reader();  // configs may name .vti files for fields
  module.attr("version") = BACKSWEEP_VERSION;
  module.def("run", &run, nb::arg("command"), nb::arg("source"), nb::arg("is_text"), nb::arg("name"),
             nb::arg("overrides"), nb::arg("write"), nb::arg("initial_fields"), nb::arg("parameter_fields"),
             nb::arg("on_main_thread"));
  module.def("seconds_per_call_in_cpp", &seconds_per_call_in_cpp);
  python::bind_loaded_problem(module);
}
