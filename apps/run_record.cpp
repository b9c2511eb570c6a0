#include "apps/run_record.hpp"

#include <filesystem>
#include <fstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "platform/printable.hpp"
#include "platform/run_info.hpp"

namespace backsweep::apps {

void commit_outputs(OutputSet& outputs, const std::string& command, const RunInfo& run) {
  namespace fs = std::filesystem;
  nlohmann::json files = nlohmann::json::object();
  for (const auto& entry : fs::recursive_directory_iterator(outputs.staging()))
    if (entry.is_regular_file()) files[fs::relative(entry.path(), outputs.staging()).string()] = entry.file_size();
  const nlohmann::json record = {{"command", command},
                                 {"run_id", run.run_id},
                                 {"backsweep_version", run.version},
                                 {"started", run.started},
                                 {"config_file", printable(run.config_file)},
                                 {"config", printable(run.config_text)},
                                 {"overrides", run.overrides},
                                 {"ranks", run.ranks},
                                 {"files", files}};
  const fs::path path = outputs.staging() / (command + "_run.json");
  std::ofstream out(path);
  out << record.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
  out.close();
  if (!out) throw std::runtime_error("cannot write " + path.string());
  outputs.commit();
}

}  // namespace backsweep::apps
