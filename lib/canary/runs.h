// Where the canary's runs are kept: runnerd writes each as
// <results_dir>/canary/<unix time>.json, reporterd reads them back. One
// naming rule for both.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace bb::canary {

struct RunFile {
  int64_t time = 0;  // unix seconds, from the name
  std::string path;
};

// "<dir>/<time>.json".
std::string run_file(const std::string& dir, int64_t time);

// The run files in `dir` newer than `after`, oldest first; a file named
// otherwise is not a run. Empty when `dir` is missing.
std::vector<RunFile> run_files(const std::string& dir, int64_t after = -1);

}  // namespace bb::canary
