// What a branch's trends change with every push, apart from their series
// files (docs/dashboard.md, "recent"): each series' points count, change
// points and newest chunk's tail, in one file per group of the ref's series
// (site_paths.h, recent_group). A push that adds a point to a thousand
// series then replaces 64 files, not a thousand series files: the series
// file is written again only when what it says changes (a tail folded into
// its chunk, a new environment, a culprit). Creating, renaming and removing
// a file each was about a quarter of such a push's time.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <tuple>

#include <nlohmann/json.hpp>

#include "util/result.h"

namespace bb::report {

namespace site {
inline constexpr const char* kRecentSchema = "benchbox.site.recent/1";
}

class RecentFiles {
 public:
  // `write` replaces a data file, `path` relative to `site_dir`. Groups
  // stay held between flushes while they hold at most `entries_kept`
  // entries in all (about 7 KB each, a tail of 64 points); past that the
  // unchanged ones are dropped, and read again when next asked for.
  using Writer = std::function<Status(const std::string& path, const std::string& text)>;
  static constexpr size_t kEntriesKept = 4096;
  RecentFiles(std::string site_dir, Writer write, size_t entries_kept = kEntriesKept)
      : site_dir_(std::move(site_dir)), write_(std::move(write)), entries_kept_(entries_kept) {}

  // Series `sid`'s entry as the site has it: as changed here, else as its
  // group's file holds it (read the first time the group is asked for);
  // nullptr when neither has one.
  const nlohmann::json* find(const std::string& repository, const std::string& ref, const std::string& sid);
  // Series `sid`'s entry to change in place (an empty object when it has
  // none), its group marked changed: a push encodes its tail into the
  // arrays the entry holds, instead of building a tree and freeing one.
  // Valid until the next flush or forget.
  nlohmann::json& entry(const std::string& repository, const std::string& ref, const std::string& sid);
  void erase(const std::string& repository, const std::string& ref, const std::string& sid);
  // Writes each of `repository`'s groups that entry or erase changed, without
  // the entries of series `live` says are gone (a file may hold some from
  // before they went; asked once per group read). Groups stay held for the
  // next job, up to a bound.
  Status flush(const std::string& repository,
               const std::function<bool(const std::string& ref, const std::string& sid)>& live);
  // Drops what is held, changes not flushed too: the next find reads the
  // files again (a job that failed half way).
  void forget() { groups_.clear(); }

 private:
  struct Group {
    std::map<std::string, nlohmann::json> entries;  // by series id
    bool changed = false;
    // Its file's entries were checked against `live` (flush): those
    // changed or erased here since are the writer's own and need no check.
    bool checked = false;
  };
  using GroupKey = std::tuple<std::string, std::string, int>;  // repository, ref, group
  Group& group(const std::string& repository, const std::string& ref, const std::string& sid);
  Status write_group(const GroupKey& key, Group& g,
                     const std::function<bool(const std::string& ref, const std::string& sid)>& live);

  std::string site_dir_;
  Writer write_;
  size_t entries_kept_;
  std::map<GroupKey, Group> groups_;
};

}  // namespace bb::report
