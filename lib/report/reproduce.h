// The commands that measure a report's benchmarks on a laptop: check out
// each commit, build and run the suites as .benchbox.yml says (the copy
// recorded with the result), and compare the two runs' result files, which
// the dashboard offers for download.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "model/result_set.h"

namespace bb::report {

// `suites`: the suites to show (empty = every suite the result set ran).
// `base_commit` empty: only the head side (a first run). `base_result` and
// `head_result`: where the two result files can be downloaded ("" = say
// `benchboxctl report`).
std::vector<std::string> reproduce_commands(const model::ResultSet& head, const std::string& clone_url,
                                            const std::string& base_commit, const std::set<std::string>& suites,
                                            const std::string& base_result, const std::string& head_result);

// The same as one Markdown block (a <details> with a sh code block).
std::string reproduce_markdown(const std::vector<std::string>& commands);

}  // namespace bb::report
