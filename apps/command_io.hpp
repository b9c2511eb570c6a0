#pragma once
// What a command is given besides its config, and where its results go. The command line
// prints them (text on stdout, or with --json the JSON object there and the text on
// stderr); the Python module keeps them (the same object, and the fields whole) and
// prints nothing but the warnings. Each run has its own: its identity and its error
// report live here, not in globals, so runs on the Python module's threads share nothing.
#include <cstddef>
#include <cstdio>
#include <map>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "apps/error_report.hpp"
#include "platform/run_info.hpp"

namespace backsweep {
struct SimulateConfig;
}

namespace backsweep::apps {

// A result in full, named by its path in the HDF5 file ("gradient/initial/u").
struct ResultArray {
  std::string path;
  std::vector<std::size_t> shape;
  std::vector<double> values;
};

struct CommandIO {
  bool json = false;          // --json
  bool keep = false;          // keep the results here, print none
  bool write_outputs = true;  // the output set of [output] dir
  // With an mpirun's ranks, what the command spread over them: "experiments", "starts", or
  // "replicated" where every rank runs it whole (what is not spread yet).
  std::string split = "replicated";
  // Values of fields by name (the Python module's arrays, borrowed for the run): they
  // replace the config's initial fields and parameter fields once it is read.
  std::map<std::string, std::span<const double>> initial_fields = {}, parameter_fields = {};
  // What its result files record of the run (none where the version is empty: the
  // Python module's runs and the C++ API's).
  RunInfo run = {};

  ErrorReport error = {};           // why it failed, where it did

  nlohmann::json results = {};      // kept: what --json prints
  std::vector<ResultArray> arrays = {};  // kept: fields and trajectories whole

  // Where a command commits its outputs: every rank of an mpirun gets here first (one that
  // failed stops the others here, before anything changes), and then whether this one
  // writes them (rank 0).
  bool writes_outputs() const;
  // Where the text for people goes.
  std::ostream& text() const;
  std::FILE* text_file() const;
  // The JSON object: printed with --json, or kept.
  void finish(nlohmann::json object);
  void keep_array(std::string path, std::vector<std::size_t> shape, std::vector<double> values);
  // The given fields put into the config (a ConfigError names one that does not fit).
  void use_given_fields(SimulateConfig& config) const;
};

}  // namespace backsweep::apps
