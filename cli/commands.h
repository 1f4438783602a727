// benchboxctl subcommands. Each lives in its own cmd_<name>.cpp and is listed
// in main.cpp's table. A command returns the process exit status: 0 success,
// 1 "the answer is no" (e.g. a regression found), 2 usage or runtime error.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace bb::cli {

using Args = std::vector<std::string>;

// Prints "benchboxctl: <message>" to stderr and returns 2.
int fail(const std::string& message);
// True when stdout is a terminal and NO_COLOR is unset.
bool use_color();
// Who asks, for requested_by: the user behind sudo, else $USER.
std::string local_user();
// An option's whole-number value ("30"), nothing else: no sign, no suffix.
std::optional<uint64_t> parse_whole_number(const std::string& text);

int cmd_version(const Args& args);
int cmd_convert(const Args& args);
int cmd_check(const Args& args);
int cmd_run(const Args& args);
int cmd_compare(const Args& args);
int cmd_status(const Args& args);
int cmd_jobs(const Args& args);
int cmd_enqueue(const Args& args);
int cmd_backfill(const Args& args);
int cmd_bisect(const Args& args);
int cmd_cancel(const Args& args);
int cmd_report(const Args& args);
int cmd_tune(const Args& args);

}  // namespace bb::cli
