// Which historical commits a backfill measures (benchboxctl backfill):
// release tags in version order, or a branch's first-parent chain. Reads
// only; the caller fetched what it needs.
//
// First-parent order, because that is the order history and the dashboard
// use for a branch (report/history.h): the commits the branch's tip went
// through, one merge per merged pull request. The commits inside a merged
// branch are not on it, as in `git rev-list --first-parent`.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "git/repository.h"
#include "util/result.h"

namespace bb::git {

struct TaggedCommit {
  std::string tag;     // "v1.2.0" (without refs/tags/)
  std::string commit;  // the commit it names (annotated tags peeled)
};

// Tags whose name matches the shell glob (fnmatch, as `git tag --list`),
// in version order: "v1.9" before "v1.10", as `git tag --sort=version:refname`
// (glibc's strverscmp). A tag that names no commit (a tagged tree or blob)
// is left out.
Result<std::vector<TaggedCommit>> tags_matching(const Repository& repo, const std::string& glob);

// The commits on `tip`'s first-parent chain that `since` cannot reach,
// oldest first: `git rev-list --first-parent --reverse since..tip`.
// since "" walks back to the root. `limit` > 0 stops after that many
// commits counted from the tip (the newest are kept).
Result<std::vector<std::string>> first_parent_commits(const Repository& repo, const std::string& tip,
                                                      const std::string& since, size_t limit = 0);

// Every n-th of `oldest_first`, counted back from the newest, which is
// always kept: what `--every N` means. n 0 or 1 keeps everything.
std::vector<std::string> every_nth(const std::vector<std::string>& oldest_first, size_t n);

}  // namespace bb::git
