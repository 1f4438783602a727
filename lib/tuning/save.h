// The durable record of original values: written (fsync'd, atomically)
// before the first change, merged on re-apply (the first original wins, so a
// second Apply never saves tuned values as "originals"), removed after a
// complete restore. Its existence after a crash is what makes the next start
// restore first.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "tuning/item.h"
#include "util/result.h"

namespace bb::tuning {

struct SaveFile {
  int64_t saved_at = 0;             // unix seconds of the first Apply
  std::vector<SaveEntry> entries;   // in the order they were changed
  std::set<std::string> applied_ok; // items that held after Apply: a later failure is drift

  // Adds entries whose (kind, target) is not saved yet; true if any was new.
  bool merge(const std::vector<SaveEntry>& more);
};

// nullopt when there is no save file; an error when it exists but cannot be
// read or parsed (the caller must not pretend the host is untuned).
Result<std::optional<SaveFile>> load_save(const std::string& path);
Status store_save(const std::string& path, const SaveFile& save);
Status remove_save(const std::string& path);

}  // namespace bb::tuning
