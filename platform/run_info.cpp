#include "platform/run_info.hpp"

#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>

namespace backsweep {

RunInfo describe_run(const std::string& version, const std::string& config_file,
                     const std::vector<std::string>& overrides) {
  RunInfo info{version, "", "", config_file, "", overrides, 1};
  std::random_device entropy;
  char id[17];
  std::snprintf(id, sizeof id, "%08x%08x", entropy(), entropy());
  info.run_id = id;
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &utc);
  info.started = stamp;
  std::error_code error;
  if (std::filesystem::is_regular_file(config_file, error)) {
    std::ifstream in(config_file, std::ios::binary);
    info.config_text.assign(std::istreambuf_iterator<char>(in), {});
  }
  return info;
}

}  // namespace backsweep
