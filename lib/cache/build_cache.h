// Built work trees kept between jobs: a re-run, a second suite, a later
// backfill of the same commit does not build again. An entry is the whole
// work tree after the build, under <dir>/<key>/tree, keyed by what decides
// the build's output: the commit's tree id (not its sha, so a rebase that
// changes nothing hits), the build commands in order, and the environment
// key (toolchain, lock files, CPUs). Bounded by size; the least recently
// used entries go first. Only runnerd uses it, one job at a time.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "util/clock.h"
#include "util/result.h"

namespace bb::cache {

// sha256 hex over the three, unambiguously joined.
std::string build_key(const std::string& tree_id, const std::vector<std::string>& builds,
                      const std::string& environment_key);

struct Entry {
  std::string key;
  uint64_t bytes = 0;
  int64_t last_used = 0;  // unix seconds
};

struct Stored {
  bool stored = false;
  std::string why_not;               // e.g. "larger than the cache (12 GiB > 10 GiB)"
  std::vector<std::string> evicted;  // keys removed to make room
};

class BuildCache {
 public:
  BuildCache(std::string dir, uint64_t max_bytes, const Clock& clock);

  // A hit copies the entry's tree to `dest` (which must not exist yet) and
  // marks it used; false on a miss. An entry that cannot be copied is
  // removed and reported as an error.
  Result<bool> restore(const std::string& key, const std::string& dest);

  // Copies `tree` in under `key` (replacing an entry of that key), then
  // evicts least-recently-used entries until the cache fits max_bytes.
  Result<Stored> store(const std::string& key, const std::string& tree);

  // Every complete entry, least recently used first.
  Result<std::vector<Entry>> entries() const;

  uint64_t max_bytes() const { return max_bytes_; }

 private:
  std::string dir_;
  uint64_t max_bytes_;
  const Clock& clock_;
};

// Bytes of regular files under `path` (symlinks not followed).
uint64_t tree_bytes(const std::string& path);

}  // namespace bb::cache
