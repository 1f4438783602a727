// Small filesystem helpers with honest errors. Writes that must survive a
// crash go through write_file_atomic: temp file, fsync, rename, fsync dir.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "util/result.h"

namespace bb {

class BackgroundRemover;

// Reads a whole regular file. Fails (Errc::invalid_argument) if it is larger
// than max_bytes or is not a regular file (a directory where a file should be).
// The string is allocated once, with kReadSlack bytes of capacity to spare
// unless the file grew while it was read: a JSON reader that reads past the
// end in SIMD blocks (simdjson) can then read it in place, not copy it.
Result<std::string> read_file(const std::string& path, size_t max_bytes = size_t(1) << 30);
inline constexpr size_t kReadSlack = 64;
// Reads `fd` to its end (retrying EINTR); more than max_bytes is an error.
// `what` names the file in errors. For files whose size stat() does not
// know (procfs, sysfs), where read_file's size check says nothing.
// `expected`: the size the caller knows, to allocate for at once.
Result<std::string> read_to_end(int fd, size_t max_bytes, const std::string& what, size_t expected = 0);

// Writes content to path atomically and durably.
Status write_file_atomic(const std::string& path, const std::string& content, int mode = 0644);
// Without fsync, for files that can be made again (the dashboard writes
// thousands per job; an fsync each would cost seconds): a reader sees the
// old file or the new one, never none and never half of one (where the
// filesystem cannot exchange two names, none for a moment); a crash may
// lose the newest version. The old file is removed at once, or handed to
// `old_files` (util/remover.h says why); a crash before its thread gets to
// it leaves it as "<path>.tmp.<pid>.<n>".
Status write_file_replace(const std::string& path, const std::string& content, int mode = 0644,
                          BackgroundRemover* old_files = nullptr);

// True when `name` (a file name, no directory) is a temporary file of
// write_file_atomic or write_file_replace that a crash left behind, or that
// a BackgroundRemover has not removed yet: "<name>.tmp.<pid>" (before
// 2026-12-07) or "<name>.tmp.<pid>.<n>", of another process than this one.
bool is_write_leftover(std::string_view name);

// mkdir -p with the given mode for the directories it creates.
Status make_dirs(const std::string& path, int mode = 0755);

// Joins two path pieces with exactly one slash.
std::string path_join(const std::string& a, const std::string& b);

bool path_exists(const std::string& path);

}  // namespace bb
