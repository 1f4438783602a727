#include "canary/runs.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

namespace bb::canary {

std::string run_file(const std::string& dir, int64_t time) { return dir + "/" + std::to_string(time) + ".json"; }

std::vector<RunFile> run_files(const std::string& dir, int64_t after) {
  std::vector<RunFile> out;
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator(dir, ec); !ec && it != std::filesystem::directory_iterator();
       it.increment(ec)) {
    const std::string name = it->path().filename().string();
    // Up to 12 digits, then ".json": another tool's file is not a run.
    if (name.size() < 6 || name.size() > 17 || name.compare(name.size() - 5, 5, ".json") != 0) continue;
    const std::string digits = name.substr(0, name.size() - 5);
    if (digits.find_first_not_of("0123456789") != std::string::npos) continue;
    const int64_t time = std::strtoll(digits.c_str(), nullptr, 10);
    if (time > after) out.push_back({time, it->path().string()});
  }
  std::sort(out.begin(), out.end(), [](const RunFile& a, const RunFile& b) { return a.time < b.time; });
  return out;
}

}  // namespace bb::canary
